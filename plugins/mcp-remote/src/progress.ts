/**
 * Progress from a server, passed to the caller at most once per interval: a server that sends
 * thousands of notifications costs the host a handful of messages. Trailing edge: the newest
 * report held back is sent when the interval ends, or when the call answers (flush), so the
 * caller always sees the last progress before the result.
 */

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export class ProgressRelay {
  private last = 0;
  private held: Progress | null = null;
  private timer: NodeJS.Timeout | null = null;

  /**
   * `send` is the call's own progress (its handle's, from ctx.currentCall()): the SDK calls us
   * from the transport's data event, outside the call, where ctx.progress would not know it.
   */
  constructor(
    private readonly send: (p: Progress) => void,
    private readonly intervalMs: number,
  ) {}

  /** For the SDK's onprogress. */
  readonly report = (p: Progress): void => {
    const clean: Progress = {
      progress: p.progress,
      ...(p.total !== undefined ? { total: p.total } : {}),
      ...(p.message !== undefined ? { message: p.message } : {}),
    };
    const wait = this.last + this.intervalMs - Date.now();
    if (wait <= 0 && !this.timer) {
      this.last = Date.now();
      this.send(clean);
      return;
    }
    this.held = clean;
    this.timer ??= setTimeout(() => this.flush(), Math.max(0, wait));
  };

  /** Sends what is held back now (the call is answering). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.held) {
      this.last = Date.now();
      this.send(this.held);
      this.held = null;
    }
  }
}
