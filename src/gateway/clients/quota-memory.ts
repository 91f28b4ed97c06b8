/**
 * Quotas kept in this process (no gateway.state): synchronous, so an admitted call pays no await.
 * Calls per minute follow quota-window.ts; concurrent calls are a count of slots held, each given
 * back exactly once however its call ends.
 */
import type { Admission, QuotaLimits, QuotaStore } from "./gate.js";
import { pastConcurrent, pastRate } from "./quota-refusal.js";
import { fits, retryAfterMs, rolled, windowStart } from "./quota-window.js";

interface Counts {
  start: number;
  previous: number;
  current: number;
  inFlight: number;
}

export class MemoryQuotaStore implements QuotaStore {
  private readonly clients = new Map<string, Counts>();

  /** `now` is a seam for the window tests; the gateway uses the wall clock. */
  constructor(private readonly now: () => number = Date.now) {}

  admit(clientId: string, limits: QuotaLimits): Admission {
    const nowMs = this.now();
    let c = this.clients.get(clientId);
    if (!c) {
      c = { start: windowStart(nowMs), previous: 0, current: 0, inFlight: 0 };
      this.clients.set(clientId, c);
    }
    const w = rolled(c.start, c.previous, c.current, nowMs);
    c.start = windowStart(nowMs);
    c.previous = w.previous;
    c.current = w.current;
    if (limits.concurrent !== null && c.inFlight >= limits.concurrent)
      return pastConcurrent(clientId, limits.concurrent);
    if (limits.callsPerMinute !== null && !fits(w, limits.callsPerMinute))
      return pastRate(clientId, limits.callsPerMinute, retryAfterMs(w, limits.callsPerMinute));
    c.current++;
    c.inFlight++;
    const counts = c;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        counts.inFlight--;
      },
    };
  }

  /** Calls of `clientId` in flight now (for tests and the status page). */
  inFlight(clientId: string): number {
    return this.clients.get(clientId)?.inFlight ?? 0;
  }
}
