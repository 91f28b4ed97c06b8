/**
 * A per-second budget for lines a server makes us log (its log notifications, its stderr): a
 * server that floods must not flood the host's log. Lines past the budget are counted and
 * reported once, when the next second starts.
 */
export class LogBudget {
  private windowStart = 0;
  private used = 0;
  private dropped = 0;

  constructor(
    private readonly perSecond: number,
    private readonly onDropped: (dropped: number) => void,
  ) {}

  /** Whether one more line may be logged now. */
  take(): boolean {
    const now = Date.now();
    if (now - this.windowStart >= 1_000) {
      if (this.dropped > 0) this.onDropped(this.dropped);
      this.windowStart = now;
      this.used = 0;
      this.dropped = 0;
    }
    if (++this.used > this.perSecond) {
      this.dropped++;
      return false;
    }
    return true;
  }
}
