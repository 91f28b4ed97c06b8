/**
 * Per-instance call statistics for `patchbay status`: calls, errors and latency percentiles over
 * the most recent calls (a fixed ring, so a long-running server's memory stays flat).
 */
const WINDOW = 1_000;

class InstanceStats {
  calls = 0;
  errors = 0;
  private readonly ring = new Float64Array(WINDOW);
  private filled = 0;
  private next = 0;

  record(ms: number, ok: boolean): void {
    this.calls++;
    if (!ok) this.errors++;
    this.ring[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
    this.filled = Math.min(WINDOW, this.filled + 1);
  }

  percentile(p: number): number | null {
    if (this.filled === 0) return null;
    const sorted = Array.from(this.ring.subarray(0, this.filled)).sort((a, b) => a - b);
    return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
  }
}

export interface CallStats {
  calls: number;
  errors: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export class StatsBook {
  private readonly byInstance = new Map<string, InstanceStats>();

  record(instance: string, ms: number, ok: boolean): void {
    let s = this.byInstance.get(instance);
    if (!s) this.byInstance.set(instance, (s = new InstanceStats()));
    s.record(ms, ok);
  }

  of(instance: string): CallStats {
    const s = this.byInstance.get(instance);
    return s
      ? { calls: s.calls, errors: s.errors, p50Ms: s.percentile(50), p99Ms: s.percentile(99) }
      : { calls: 0, errors: 0, p50Ms: null, p99Ms: null };
  }
}
