/**
 * One hook run's state and its log: the deadline (which can move once), the adapter session, the
 * hooks.log it writes to, and the scrubber that keeps every string of the payload out of that log
 * (except what normalization whitelisted); and the options a run starts from. Shared by the runner
 * and the work it bounds.
 */
import { Writable } from "node:stream";
import path from "node:path";
import { Scrubber } from "../secrets.js";
import { resolveConfigPath } from "../config/source.js";
import type { AdapterSession } from "./session.js";
import { appendHookLog, homeDir, hookLogPath, stateDirFor, type Env } from "./state.js";

/** What `patchbay hook` starts a run with. */
export interface HookRunOptions {
  adapter: string;
  /** The event word from the command line (`patchbay hook claude-code PreToolUse`), or null. */
  event: string | null;
  /** Reads the client payload (stdin); part of the bounded run. */
  readPayload(): Promise<string>;
  config?: string;
  cwd?: string;
  env: Env;
  /** --timeout-ms; wins over PATCHBAY_HOOK_TIMEOUT_MS and the instance's hook_timeout_ms. */
  timeoutMs?: number;
  /** performance.now() value the bound counts from (default 0: process start). */
  startedAt?: number;
}

/** Why a run failed open: a reason word for the log, and the error code when there is one. */
export class FailOpen extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

export interface RunState {
  deadline: number;
  timedOut: boolean;
  session: AdapterSession | null;
  logFile: string | null;
  scrubber: Scrubber;
  facts: Record<string, unknown>;
}

/** Where a run's config is looked for: enough to find its hooks.log without loading the config. */
interface LogLocation {
  config?: string;
  cwd?: string;
  env: Env;
}

/**
 * This run's hooks.log, found from where connectors.json is (no parsing), so a bound that fires
 * while the config is still loading — a slow disk, a busy machine — still records why it failed open.
 */
export function locateLog(opts: LogLocation): string {
  try {
    return hookLogPath(
      stateDirFor(
        path.dirname(resolveConfigPath({ config: opts.config, cwd: opts.cwd, env: opts.env }).file),
        opts.env,
      ),
    );
  } catch {
    return homeLog(opts);
  }
}

/**
 * No connectors.json at all: the line goes to ~/.patchbay/hooks.log (or PATCHBAY_HOME), never into
 * the client's project.
 */
export function homeLog(opts: LogLocation): string {
  return hookLogPath(
    opts.env.PATCHBAY_HOME
      ? path.resolve(opts.cwd ?? process.cwd(), opts.env.PATCHBAY_HOME)
      : path.join(homeDir(opts.env), ".patchbay"),
  );
}

export function remaining(state: RunState): number {
  return Math.max(1, Math.floor(state.deadline - performance.now()));
}

export function scrubbed(state: RunState, text: string): string {
  const clean = state.scrubber.scrub(text);
  return clean.length > 400 ? clean.slice(0, 400) + "…" : clean;
}

export function log(state: RunState, entry: Record<string, unknown>): void {
  if (state.logFile) appendHookLog(state.logFile, entry);
}

/** Worker log lines (an adapter's ctx.log, the host's warnings) go to hooks.log, payload text scrubbed. */
export function logStream(state: RunState): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      if (state.logFile) appendHookLog(state.logFile, { worker: state.scrubber.scrub(String(chunk).trim()) });
      done();
    },
  });
}

export function collectStrings(value: unknown, add: (s: string) => void, depth = 0): void {
  if (depth > 64) return;
  if (typeof value === "string") add(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, add, depth + 1);
  else if (value && typeof value === "object") for (const v of Object.values(value)) collectStrings(v, add, depth + 1);
}

export function scrubberExcept(payload: unknown, keep: (string | null)[]): Scrubber {
  const allowed = new Set(keep.filter((k): k is string => typeof k === "string"));
  const scrubber = new Scrubber();
  collectStrings(payload, (s) => {
    if (!allowed.has(s)) scrubber.add(s);
  });
  return scrubber;
}

export async function closeQuietly(session: AdapterSession | null): Promise<void> {
  if (!session) return;
  await Promise.race([session.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]);
}
