/**
 * The clocks of one request: the SDK's per-request timeout derived from the caller's deadline
 * (a little after it, so the host's deadline always fires first and cancels), and a bounded wait.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/** The largest delay setTimeout accepts; used when the caller has no deadline at all. */
const NO_DEADLINE_TIMEOUT_MS = 2_147_483_647;
/** How long after the caller's deadline the SDK's own timeout fires: the host's deadline always comes first. */
export const AFTER_DEADLINE_MS = 1_000;

/** The SDK's per-request timeout for a deadline `deadline` (ms since epoch, or Infinity): a little after it. */
export function requestTimeout(deadline: number, lateByMs = AFTER_DEADLINE_MS): number {
  if (!Number.isFinite(deadline)) return NO_DEADLINE_TIMEOUT_MS;
  const left = deadline - Date.now();
  return Math.min(NO_DEADLINE_TIMEOUT_MS, Math.max(1, Math.floor(left)) + lateByMs);
}

export function deadlineError(what: string): Error {
  return new McpError(ErrorCode.RequestTimeout, `${what}: no time left before the call's deadline`);
}

/** Waits for `promise`, but no longer than `ms` and not past `signal`. */
export function bounded<T>(promise: Promise<T>, ms: number, signal: AbortSignal, what: string): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const timer = Number.isFinite(ms)
      ? setTimeout(
          () =>
            finish(() =>
              reject(new McpError(ErrorCode.RequestTimeout, `${what} timed out after ${Math.round(ms)} ms`)),
            ),
          ms,
        )
      : undefined;
    const onAbort = () => finish(() => reject(signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    function finish(settle: () => void) {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      settle();
    }
    promise.then(
      (v) => finish(() => resolve(v)),
      (e) => finish(() => reject(e)),
    );
  });
}
