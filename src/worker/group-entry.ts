/**
 * The program of a group's shared thread (spawn/group-runtime.ts): each "attach" message brings
 * one instance's task and its own MessagePort, and that instance runs the same serve loop as in
 * a thread of its own. Every instance runs inside its own async context, so an uncaught error
 * names the instance whose code threw it before the thread dies. It imports leaves only.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isMainThread, parentPort, type MessagePort } from "node:worker_threads";
import type { InstanceTask, WorkerToHost } from "../contract/rpc.js";
import { serve } from "./serve.js";
import { ResultOutbox, unsendableResult } from "./outbox.js";
import { captureConsole } from "./worker-log.js";
import { enableCompileCache } from "./compile-cache.js";
import { allowRuntimeTwins } from "./runtime-twin.js";

if (isMainThread || !parentPort) throw new Error("worker/group-entry must run inside a worker thread");
enableCompileCache();
allowRuntimeTwins();
const host = parentPort;
const current = new AsyncLocalStorage<{ instance: string; send(msg: WorkerToHost): void }>();

process.on("uncaughtExceptionMonitor", (err: unknown) => {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  host.postMessage({ t: "culprit", instance: current.getStore()?.instance ?? null, error: text.split("\n")[0] });
});

host.on("message", (msg: { t?: unknown; task?: InstanceTask; port?: MessagePort }) => {
  if (msg?.t !== "attach" || !msg.task || !msg.port) return;
  const { task, port } = msg;
  // Each instance batches its own results on its own port; console lines go through the same send, in order.
  const send = new ResultOutbox((m) => port.postMessage(m), unsendableResult(task.instance)).send;
  const me = { instance: task.instance, send };
  void current.run(me, () =>
    serve(task, {
      send,
      // A port's events run outside the context they were registered in: enter it for each call,
      // so timers and promises the plugin starts there carry its name too.
      onMessage: (fn) => port.on("message", (m) => current.run(me, fn, m)),
      end(last) {
        send(last);
        port.close();
      },
    }),
  );
  // serve() points console and the raw streams at this instance; in a shared thread they must
  // follow whoever is running (a write outside every instance's context is dropped).
  captureConsole((m) => current.getStore()?.send(m));
});
