/**
 * The worker side of a plugin's logs: ctx.log's lines, console.* and (in a thread) raw
 * stdout/stderr writes, all as log messages to the host under a first rate cap.
 */
import { isMainThread } from "node:worker_threads";
import type { LogMessage, WorkerToHost } from "../contract/rpc.js";
import type { Send } from "./call-scope.js";

export type Level = LogMessage["level"];

/**
 * The first cap on a log flood, where it is cheapest: lines over the rate are dropped
 * here, before they are serialized, so a million ctx.log calls cost the host nothing. The host
 * caps again (spawn/log-limit.ts, same numbers), for a plugin that posts on its channel directly.
 */
const LINES_PER_WINDOW = 1_000;
const WINDOW_MS = 1_000;
/** Per channel: a group thread hosts several instances, each with its own send and its own budget. */
const budgets = new WeakMap<Send, { windowStart: number; inWindow: number; dropped: number }>();

export function sendLog(send: Send, level: Level, msg: unknown, data?: unknown): void {
  let b = budgets.get(send);
  if (!b) budgets.set(send, (b = { windowStart: 0, inWindow: 0, dropped: 0 }));
  const now = Date.now();
  if (now - b.windowStart >= WINDOW_MS) {
    b.windowStart = now;
    b.inWindow = 0;
    if (b.dropped > 0)
      send({
        t: "log",
        level: "warn",
        msg: `${b.dropped} log lines dropped in the worker: over ${LINES_PER_WINDOW} lines per ${WINDOW_MS} ms`,
        data: { dropped: b.dropped },
      });
    b.dropped = 0;
  }
  if (++b.inWindow > LINES_PER_WINDOW) {
    if (b.dropped++ === 0)
      send({ t: "log", level: "warn", msg: `dropping log lines: over ${LINES_PER_WINDOW} lines per ${WINDOW_MS} ms` });
    return;
  }
  const message: WorkerToHost = { t: "log", level, msg: typeof msg === "string" ? msg : safeString(msg) };
  if (data && typeof data === "object") message.data = toPlain(data) as Record<string, unknown>;
  send(message);
}

/** Routes console.* to the host logger: a plugin's stray console.log must not corrupt stdout (--json). */
export function captureConsole(send: Send): void {
  const route =
    (level: Level) =>
    (...args: unknown[]) =>
      sendLog(send, level, args.map(safeString).join(" "));
  console.log = route("info");
  console.info = route("info");
  console.debug = route("debug");
  console.trace = route("trace");
  console.warn = route("warn");
  console.error = route("error");
  // A child's stdout and stderr are pipes the host already reads line by line (and its fatal line must reach stderr).
  if (!isMainThread) {
    captureStream(send, process.stdout, "info", "stdout");
    captureStream(send, process.stderr, "warn", "stderr");
  }
}

/**
 * A thread's process.stdout/stderr are the host's: a raw write would bypass the
 * scrubber and break `--json`. Writes become log lines of the instance instead (the host caps
 * and scrubs them). fs.writeSync(1) still reaches the host's descriptor: a thread shares the
 * process (docs/isolation.md).
 */
function captureStream(send: Send, stream: NodeJS.WriteStream, level: Level, name: "stdout" | "stderr"): void {
  let buffered = "";
  const write = (chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
    const text =
      typeof chunk === "string"
        ? chunk
        : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString("utf8")
          : String(chunk);
    const lines = (buffered + text).split("\n");
    buffered = lines.pop() ?? "";
    // An unterminated write longer than this is flushed as a line of its own (bounded memory).
    if (buffered.length > 8_192) {
      lines.push(buffered);
      buffered = "";
    }
    for (const line of lines) if (line.trim()) sendLog(send, level, line, { stream: name });
    const done = typeof encoding === "function" ? encoding : cb;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  };
  try {
    Object.defineProperty(stream, "write", { value: write, writable: true, configurable: true });
  } catch {
    // A stream we cannot patch is left as it is.
  }
}

function safeString(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function toPlain(value: unknown): unknown {
  try {
    return JSON.parse(
      JSON.stringify(value, (_k, v) => (v instanceof Error ? { message: v.message, name: v.name } : v)),
    );
  } catch {
    return { unserializable: String(value) };
  }
}
