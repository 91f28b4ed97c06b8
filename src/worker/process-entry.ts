/**
 * The program a process-isolated instance runs: spawn/process-runtime.ts starts it under Node's
 * permission model with only the manifest's env, and a socket to the host on fd 3 carrying
 * bounded frames (contract/frame-channel.ts). Its first message is its task; then it runs the same
 * serve loop as a thread (serve.ts). It imports leaves only.
 */
import net from "node:net";
import { FATAL_LINE_PREFIX, type HostToWorker, type TaskMessage } from "../contract/rpc.js";
import { encodeFrame, FrameReader } from "../contract/frame-channel.js";
import { serve, type WorkerChannel } from "./serve.js";
import { ResultOutbox, unsendableResult } from "./outbox.js";

const CHANNEL_FD = 3;

// Node still prints the error and exits 1; this line only names the error for the host's crash
// message. stderr is a pipe, and pipe writes are synchronous on Linux, so it lands before exit.
process.on("uncaughtExceptionMonitor", (err: unknown) => {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  process.stderr.write(`${FATAL_LINE_PREFIX}${text.split("\n")[0]}\n`);
});

const socket = new net.Socket({ fd: CHANNEL_FD, readable: true, writable: true });
// The host is gone (killed, or it closed the channel): nothing can reach this instance any more.
socket.on("close", () => process.exit(0));
socket.on("error", () => process.exit(0));
// Serializes synchronously, and throws on a value structured clone cannot carry, exactly like
// MessagePort.postMessage.
const post = (msg: unknown, then?: () => void) => void socket.write(encodeFrame(msg), then);

let onMessage: ((msg: unknown) => void) | null = null;
const reader = new FrameReader(
  (msg) => {
    if (onMessage) return onMessage(msg);
    const first = msg as TaskMessage | HostToWorker;
    if (first.t !== "task") throw new Error(`expected the task first, got "${first.t}"`);
    start(first);
  },
  (why) => {
    throw new Error(`the host sent ${why}`);
  },
);
socket.on("data", (chunk: Buffer) => reader.push(chunk));

function start(msg: TaskMessage): void {
  const out = new ResultOutbox((m) => post(m), unsendableResult(msg.task.instance));
  const channel: WorkerChannel = {
    send: out.send,
    onMessage: (fn) => void (onMessage = fn as (msg: unknown) => void),
    // Exit only once `last` is written: the plugin's timers and sockets must not keep a closed
    // instance alive, and a plain exit could drop a message still queued on the channel.
    end: (last) => {
      out.flush();
      post(last, () => process.exit(0));
    },
  };
  void serve(msg.task, channel);
}
