/**
 * The audit record of a resources/read or prompts/get (tools/call builds its own in
 * tool-calls.ts): timed around the instance call, recorded only when a request actually reached
 * an instance, with sizes and an outcome code, never the contents (a resource or a prompt's
 * arguments may hold anything).
 */
import { isPatchbayError } from "../../errors.js";
import type { Caller } from "../clients/caller.js";
import type { AuditEntry } from "../clients/gate.js";
import { jsonBytes } from "../tool-results.js";

/** A name or URI in the trail is cut here: a client cannot grow the log by sending a huge one. */
const MAX_NAME = 200;

/**
 * Runs one resource read or prompt get; `run` calls `reached(instance)` just before it asks an
 * instance, so a request refused or unroutable at the gateway leaves no line.
 */
export type AuditedRun = <T>(
  kind: "resource" | "prompt",
  name: string,
  session: string | undefined,
  bytesIn: number,
  run: (reached: (instance: string) => void) => Promise<T>,
) => Promise<T>;

/** The outcome code of a failed request: its PB_ERR_* code, or the JSON-RPC code it carries. */
export function outcomeOfError(err: unknown): string {
  if (isPatchbayError(err)) {
    // The upstream server's own JSON-RPC error reaches the client with its code: the trail says the same.
    const rpc = err.data.rpcCode;
    return err.code === "PB_ERR_UPSTREAM_RPC" && typeof rpc === "number" && Number.isInteger(rpc)
      ? String(rpc)
      : err.code;
  }
  const e = err as { code?: unknown; data?: { code?: unknown } } | null;
  const pb = e?.data?.code;
  if (typeof pb === "string" && /^PB_ERR_[A-Z_]{1,60}$/.test(pb)) return pb;
  if (typeof e?.code === "number" && Number.isInteger(e.code)) return String(e.code);
  return "PB_ERR_INTERNAL";
}

export const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

/** An AuditedRun for one caller; `sink()` is read per request, so an unaudited gateway pays one check. */
export function auditedRun(
  sink: () => ((entry: AuditEntry) => void) | null,
  caller: Caller,
  fixedSession: string | null,
): AuditedRun {
  return async <T>(
    kind: "resource" | "prompt",
    name: string,
    session: string | undefined,
    bytesIn: number,
    run: (reached: (instance: string) => void) => Promise<T>,
  ): Promise<T> => {
    const record = sink();
    if (!record) return run(() => undefined);
    let instance: string | null = null;
    const started = performance.now();
    let outcome = "ok";
    let result: T | undefined;
    try {
      result = await run((id) => (instance = id));
      return result;
    } catch (err) {
      outcome = outcomeOfError(err);
      throw err;
    } finally {
      if (instance !== null)
        record({
          time: new Date().toISOString(),
          client: caller.id,
          session: fixedSession ?? session ?? null,
          instance,
          kind,
          name: name.slice(0, MAX_NAME),
          outcome,
          durationMs: roundMs(performance.now() - started),
          bytesIn,
          bytesOut: outcome === "ok" ? jsonBytes(result) : 0,
          idempotencyKey: null,
        });
    }
  };
}
