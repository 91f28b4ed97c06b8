/**
 * When an audit sink writes: its entries wait in memory and go out in batches, at most `delayMs`
 * after the first one (or at once when the sink says its buffer is full), one batch at a time.
 * The call path only appends; the disk or the database is waited on here. Both sinks (the file,
 * PostgreSQL) share it, so they cannot differ in when a line is lost or kept.
 */
export class Batches {
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;

  constructor(
    /** Whether entries wait to be written. */
    private readonly pending: () => boolean,
    /** Writes one batch (the sink takes what it writes from its buffer). */
    private readonly writeBatch: () => Promise<void>,
  ) {}

  /** An entry was added: write within `delayMs`, or now when `full`. */
  added(delayMs: number, full: boolean): void {
    const ms = full ? 0 : delayMs;
    if (this.timer && ms > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, ms);
    // A buffered entry must not keep a finished process alive; close() writes it.
    this.timer.unref();
  }

  /** Writes everything waiting, after a batch already being written. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.writing || this.pending()) {
      if (this.writing) await this.writing;
      else this.writing = this.writeBatch().finally(() => (this.writing = null));
    }
  }
}
