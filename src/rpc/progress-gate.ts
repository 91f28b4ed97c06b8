/**
 * How often one call's progress reaches its caller: at most once every PROGRESS_INTERVAL_MS, the
 * newest update held back in between and delivered just before the call's answer. A plugin may
 * report as fast as it likes (a loop of a million reports is a few lines of code); without this,
 * each became a callback here and a notification to an MCP client. The bundled mcp-remote already
 * paces what its servers send at the same rate; this holds every plugin to it, at the boundary.
 */
import type { ProgressUpdate } from "./progress-types.js";

export const PROGRESS_INTERVAL_MS = 50;

export class ProgressGate {
  private last = Number.NEGATIVE_INFINITY;
  private held: ProgressUpdate | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** `deliver` is the caller's onProgress; what it throws is its own affair and never reaches the channel. */
  constructor(private readonly deliver: (update: ProgressUpdate) => void) {}

  offer(update: ProgressUpdate): void {
    const now = Date.now();
    if (!this.timer && now - this.last >= PROGRESS_INTERVAL_MS) {
      this.last = now;
      return this.send(update);
    }
    this.held = update;
    if (!this.timer) {
      this.timer = setTimeout(this.release, this.last + PROGRESS_INTERVAL_MS - now);
      this.timer.unref();
    }
  }

  /** The call is answering: what is held back goes first. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.release();
  }

  /** The call ended without an answer (deadline, cancel, worker gone): nothing more is delivered. */
  drop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.held = null;
  }

  private readonly release = (): void => {
    this.timer = null;
    const update = this.held;
    if (!update) return;
    this.held = null;
    this.last = Date.now();
    this.send(update);
  };

  private send(update: ProgressUpdate): void {
    try {
      this.deliver(update);
    } catch {
      // The caller's callback failing must not break the channel.
    }
  }
}
