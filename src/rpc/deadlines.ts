/**
 * One timer for every pending call of a connection, armed at the earliest deadline, instead of
 * a timer per call: calls are frequent, expiries are rare.
 */
export class DeadlineWheel {
  private readonly deadlines = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;

  constructor(private readonly onExpire: (id: number) => void) {}

  add(id: number, deadline: number): void {
    this.deadlines.set(id, deadline);
    if (deadline < this.armedFor) this.arm(deadline);
  }

  /**
   * Removal is lazy: the timer stays armed and finds nothing to expire. Re-arming a timer on
   * every call of a sequential stream cost more than the rest of the host's bookkeeping.
   */
  remove(id: number): void {
    this.deadlines.delete(id);
  }

  clear(): void {
    this.deadlines.clear();
    this.disarm();
  }

  private arm(deadline: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = deadline;
    this.timer = setTimeout(() => this.fire(), Math.max(0, deadline - Date.now()));
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = Infinity;
  }

  private fire(): void {
    this.timer = null;
    this.armedFor = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [id, deadline] of [...this.deadlines]) {
      if (deadline <= now) {
        this.deadlines.delete(id);
        this.onExpire(id);
      } else if (deadline < next) next = deadline;
    }
    if (next !== Infinity) this.arm(next);
  }
}
