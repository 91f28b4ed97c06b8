/**
 * Per-instance bounds on what a plugin may log: a flood of a million lines must
 * neither stall the host's event loop nor grow its memory. Each line costs O(1) to drop; what
 * is kept is cut to a bounded size; the drops are counted and reported once per window.
 */
import type { LogMessage } from "../contract/rpc.js";

/** Lines per window an instance may log; the rest are dropped and counted. */
export const LOG_LINES_PER_WINDOW = 1_000;
const LOG_WINDOW_MS = 1_000;
/** A log message longer than this is cut (characters). */
export const LOG_MSG_MAX = 8_192;
/** A log line's data serialized longer than this is replaced by a note (characters). */
const LOG_DATA_MAX = 16_384;

export class LogLimiter {
  /** Lines dropped over the instance's lifetime. */
  dropped = 0;
  private windowStart = 0;
  private inWindow = 0;
  private droppedInWindow = 0;

  constructor(
    private readonly emit: (msg: LogMessage) => void,
    private readonly now: () => number = Date.now,
  ) {}

  push(msg: LogMessage): void {
    const t = this.now();
    if (t - this.windowStart >= LOG_WINDOW_MS) {
      const dropped = this.droppedInWindow;
      this.windowStart = t;
      this.inWindow = 0;
      this.droppedInWindow = 0;
      if (dropped > 0)
        this.emit({
          t: "log",
          level: "warn",
          msg: `${dropped} log lines dropped: over ${LOG_LINES_PER_WINDOW} lines per ${LOG_WINDOW_MS} ms`,
          data: { dropped },
        });
    }
    if (++this.inWindow > LOG_LINES_PER_WINDOW) {
      this.dropped++;
      // Say so once, when dropping starts; the count follows when the window ends.
      if (this.droppedInWindow++ === 0)
        this.emit({
          t: "log",
          level: "warn",
          msg: `dropping log lines: over ${LOG_LINES_PER_WINDOW} lines per ${LOG_WINDOW_MS} ms`,
        });
      return;
    }
    this.emit(bound(msg));
  }
}

function bound(msg: LogMessage): LogMessage {
  const text =
    msg.msg.length > LOG_MSG_MAX
      ? `${msg.msg.slice(0, LOG_MSG_MAX)}… (${msg.msg.length - LOG_MSG_MAX} more characters cut)`
      : msg.msg;
  if (msg.data === undefined) return text === msg.msg ? msg : { ...msg, msg: text };
  let data: Record<string, unknown> = msg.data;
  try {
    const size = JSON.stringify(data)?.length ?? 0;
    if (size > LOG_DATA_MAX) data = { data_cut: `log data of ${size} characters is over ${LOG_DATA_MAX}` };
  } catch {
    // BigInt, a cycle: the logger could not write it either.
    data = { data_cut: "log data that cannot be written as JSON" };
  }
  return { ...msg, msg: text, data };
}
