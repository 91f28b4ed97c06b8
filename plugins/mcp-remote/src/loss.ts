/**
 * What a failed request says about its session: still fine ("none"), gone before the request
 * could reach the server ("not-sent": safe to retry on a new session), or gone while it may have
 * run there ("maybe-sent": only idempotent requests are retried). Connection.run() decides
 * retries from this.
 */
import type { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/** A request in flight lost its connection; it may have run on the server. */
export class ConnectionLostError extends Error {}

export type Loss = "none" | "not-sent" | "maybe-sent";

/** The part of a session the verdict reads. */
export interface SessionState {
  lost: boolean;
  broken: AbortController;
}

/**
 * For a request the caller did not cancel (a cancelled one is "none", decided by the caller).
 * `httpError`: the SDK's StreamableHTTPError class, for a `url` server (a stdio one never meets it).
 */
export function classifyLoss(err: unknown, session: SessionState, httpError?: typeof StreamableHTTPError): Loss {
  if (err instanceof ConnectionLostError || session.broken.signal.aborted) return "maybe-sent";
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) return "none";
  if (httpError && err instanceof httpError) {
    const status = err.code ?? 0;
    // 404 is the spec's "unknown session" (server restarted); SDK-example servers answer 400 "No valid session ID".
    if (status === 404 || (status === 400 && /session/i.test(err.message))) return "not-sent";
    return "none";
  }
  if (err instanceof Error && err.message === "Not connected") return "not-sent";
  const code = (err as { cause?: { code?: unknown } })?.cause?.code;
  if (err instanceof TypeError && code === "ECONNREFUSED") return "not-sent";
  if (err instanceof TypeError && /fetch failed|terminated|socket/i.test(err.message)) return "maybe-sent";
  if (session.lost) return "maybe-sent";
  return "none";
}
