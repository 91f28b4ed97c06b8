/**
 * The arithmetic of calls per minute, shared by the in-memory store and the PostgreSQL one so both
 * refuse the same call and name the same wait.
 *
 * Two fixed one-minute windows, weighted (the "sliding window counter"): the estimate of the last
 * 60 s is the previous window's count scaled by how much of it still overlaps, plus the current
 * window's count. Why not an exact sliding log: a log keeps one timestamp per call, which in
 * PostgreSQL means a row per call and a count per admit; two counters fit in one row that one atomic
 * upsert updates. The price is an estimate that assumes the previous minute's calls were spread
 * evenly: it never lets through more than twice the limit in any 60 s, and under steady traffic it
 * is within a few percent of exact.
 */

export const WINDOW_MS = 60_000;

/** The two counters of one client, and how far into the current window `now` is. */
export interface WindowCounts {
  previous: number;
  current: number;
  /** 0 ≤ elapsedMs < WINDOW_MS. */
  elapsedMs: number;
}

/** The weighted estimate of calls in the last minute. */
export function estimate(w: WindowCounts): number {
  return (w.previous * (WINDOW_MS - w.elapsedMs)) / WINDOW_MS + w.current;
}

/** One more call fits under `limit`. */
export function fits(w: WindowCounts, limit: number): boolean {
  // The tolerance absorbs float rounding, so the wait retryAfterMs names is always enough.
  return estimate(w) + 1 <= limit + 1e-9;
}

/**
 * How long until one more call fits, assuming no other call is admitted meanwhile: while the
 * current window lasts only the previous window's weight falls; after it, the current count
 * becomes the previous one and falls in turn. At least 1 ms, rounded up, so a client that
 * waits exactly this long is admitted.
 */
export function retryAfterMs(w: WindowCounts, limit: number): number {
  if (fits(w, limit)) return 0;
  const room = limit - 1 - w.current;
  if (room >= 0 && w.previous > 0) {
    // Inside the current window: previous * (1 - t / W) <= room.
    const t = (WINDOW_MS * (w.previous - room)) / w.previous;
    return Math.max(1, Math.ceil(t - w.elapsedMs));
  }
  // The current window is full by itself: in the next one, current * (1 - t / W) <= limit - 1.
  const t = (WINDOW_MS * (w.current - limit + 1)) / w.current;
  return Math.max(1, Math.ceil(WINDOW_MS - w.elapsedMs + t));
}

/** The window a moment falls in (windows start on whole minutes of the clock). */
export const windowStart = (nowMs: number): number => Math.floor(nowMs / WINDOW_MS) * WINDOW_MS;

/** The counters as they stand at `nowMs`, given those stored for the window starting at `start`. */
export function rolled(start: number, previous: number, current: number, nowMs: number): WindowCounts {
  const now = windowStart(nowMs);
  const elapsedMs = nowMs - now;
  if (start === now) return { previous, current, elapsedMs };
  if (start === now - WINDOW_MS) return { previous: current, current: 0, elapsedMs };
  return { previous: 0, current: 0, elapsedMs };
}
