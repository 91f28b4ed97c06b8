/**
 * One timer for every pending call of a connection, armed at the earliest deadline, instead of
 * a timer per call: calls are frequent, expiries are rare. The deadlines themselves live with
 * the pending calls (the client's map): the wheel keeps no copy, so a call costs no map entry
 * here, and a settled call is simply gone from what the wheel scans when it fires.
 */
export class DeadlineWheel {
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;

  /** `pending` is the live map of pending calls, by id; the wheel only reads it. */
  constructor(
    private readonly pending: ReadonlyMap<number, { readonly deadline: number }>,
    private readonly onExpire: (id: number) => void,
  ) {}

  /** A call with this deadline became pending (it must already be in `pending`). */
  add(deadline: number): void {
    if (deadline < this.armedFor) this.arm(deadline);
  }

  clear(): void {
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

  /**
   * Expires what is due and re-arms for the earliest deadline left. Settling is lazy: the timer
   * stays armed and finds nothing to expire (re-arming on every call of a sequential stream cost
   * more than the rest of the host's bookkeeping).
   */
  private fire(): void {
    this.timer = null;
    this.armedFor = Infinity;
    const now = Date.now();
    const due: number[] = [];
    let next = Infinity;
    for (const [id, p] of this.pending) {
      if (p.deadline <= now) due.push(id);
      else if (p.deadline < next) next = p.deadline;
    }
    for (const id of due) this.onExpire(id);
    if (next !== Infinity && next < this.armedFor) this.arm(next);
  }
}
