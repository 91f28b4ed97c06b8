/**
 * The program a process-isolated instance runs: spawn/process-runtime.ts forks it under Node's
 * permission model with only the manifest's env. Its first IPC message is its task; then it runs
 * the same serve loop as a thread (serve.ts). It imports leaves only.
 */
import { FATAL_LINE_PREFIX, type HostToWorker, type TaskMessage } from "../contract/rpc.js";
import { serve, type WorkerChannel } from "./serve.js";
import { ResultOutbox, unsendableResult } from "./outbox.js";

const ipc = process.send?.bind(process);
if (!ipc) throw new Error("worker/process-entry must be forked with an IPC channel");

// The host is gone (killed, or it closed the channel): nothing can reach this instance any more.
process.on("disconnect", () => process.exit(0));
// Node still prints the error and exits 1; this line only names the error for the host's crash
// message. stderr is a pipe, and pipe writes are synchronous on Linux, so it lands before exit.
process.on("uncaughtExceptionMonitor", (err: unknown) => {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  process.stderr.write(`${FATAL_LINE_PREFIX}${text.split("\n")[0]}\n`);
});

process.once("message", (msg: TaskMessage | HostToWorker) => {
  if (msg.t !== "task") throw new Error(`expected the task first, got "${msg.t}"`);
  // With serialization "advanced", send() serializes synchronously and throws on a value
  // structured clone cannot carry, exactly like MessagePort.postMessage.
  const out = new ResultOutbox((m) => void ipc(m), unsendableResult(msg.task.instance));
  const channel: WorkerChannel = {
    send: out.send,
    onMessage: (fn) => process.on("message", fn as (msg: unknown) => void),
    // Exit only once `last` is written: the plugin's timers and sockets must not keep a closed
    // instance alive, and a plain exit could drop a message still queued on the channel.
    end: (last) => {
      out.flush();
      void ipc(last, undefined, undefined, () => process.exit(0));
    },
  };
  void serve(msg.task, channel);
});
