/**
 * Progress from a server, passed to the caller at most once per interval: a server that sends
 * thousands of notifications costs the host a handful of messages. Trailing edge: the newest
 * report held back is sent when the interval ends, or when the call answers (flush), so the
 * caller always sees the last progress before the result.
 */
import { AsyncResource } from "node:async_hooks";
import type { PluginContext } from "patchbay/plugin";

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
   * The call's async context: the SDK calls us from the transport's data event, where ctx.progress
   * would not know the call. A plain AsyncResource rather than AsyncResource.bind(): bind() costs
   * about 10 µs (it builds a deprecation getter each time), paid on every call, progress or not.
   */
  private readonly scope = new AsyncResource("mcp-remote.progress");

  constructor(
    private readonly ctx: PluginContext,
    private readonly intervalMs: number,
  ) {}

  private send(p: Progress): void {
    this.scope.runInAsyncScope(() => this.ctx.progress?.(p));
  }

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
