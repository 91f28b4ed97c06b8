/**
 * When a crashed worker may restart: exponential backoff, and a circuit that opens after too
 * many crashes in a window (VS Code's "3 times within 5 minutes"), so a crash loop stops.
 */
export interface RestartPolicyOptions {
  maxCrashes: number;
  windowMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

const DEFAULT_RESTART_POLICY: RestartPolicyOptions = Object.freeze({
  maxCrashes: 3,
  windowMs: 5 * 60_000,
  baseDelayMs: 100,
  maxDelayMs: 5_000,
});

export class RestartPolicy {
  private crashes: number[] = [];

  constructor(private readonly opts: RestartPolicyOptions = DEFAULT_RESTART_POLICY) {}

  /** Records a crash; returns the delay before the next start, or null when the circuit opens. */
  recordCrash(now = Date.now()): number | null {
    this.crashes = this.crashes.filter((t) => now - t < this.opts.windowMs);
    this.crashes.push(now);
    if (this.crashes.length >= this.opts.maxCrashes) return null;
    return Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** (this.crashes.length - 1));
  }

  get recentCrashes(): number {
    return this.crashes.length;
  }
}
