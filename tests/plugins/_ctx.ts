/**
 * A PluginContext for calling a plugin's create() directly, without a host: a log that records
 * its lines, a controllable signal and deadline, and connectors that refuse every lookup.
 */
import type { PluginContext, PluginLog } from "patchbay/plugin";

export interface LogLine {
  level: "trace" | "debug" | "info" | "warn" | "error";
  msg: string;
  data?: Record<string, unknown>;
}

export interface TestCtx {
  ctx: PluginContext;
  lines: LogLine[];
  /** Abort the current "call". */
  abort(reason?: unknown): void;
  /** Change what remainingMs() answers (Infinity = outside a call). */
  setRemainingMs(ms: number): void;
}

export function makeCtx(opts: { instance?: string; remainingMs?: number } = {}): TestCtx {
  const lines: LogLine[] = [];
  let remaining = opts.remainingMs ?? 30_000;
  let controller = new AbortController();
  const record =
    (level: LogLine["level"]) =>
    (a: string | Record<string, unknown>, b?: string | Record<string, unknown>): void => {
      // Both orders, as the host's ctx.log accepts: (msg, data) and pino's (data, msg).
      const [msg, data] = typeof a === "string" ? [a, b as Record<string, unknown> | undefined] : [String(b), a];
      lines.push(data === undefined ? { level, msg } : { level, msg, data });
    };
  const log = {
    trace: record("trace"),
    debug: record("debug"),
    info: record("info"),
    warn: record("warn"),
    error: record("error"),
  } as PluginLog;
  const ctx: PluginContext = {
    instance: opts.instance ?? "test/instance",
    log,
    get signal() {
      return controller.signal;
    },
    remainingMs: () => remaining,
    connectors: {
      get(target: string): never {
        throw new Error(`no connectors are granted in this test (asked for ${target})`);
      },
      list: () => [],
    },
  };
  return {
    ctx,
    lines,
    abort(reason?: unknown) {
      controller.abort(reason);
      controller = new AbortController();
    },
    setRemainingMs(ms: number) {
      remaining = ms;
    },
  };
}
