/**
 * The program that runs inside each thread-isolated plugin worker. tinypool calls the default
 * export once with a ServeTask; the serve loop (serve.ts) answers calls on the task's
 * MessagePort and resolves only when the host asks it to close. It imports leaves only
 * (errors, contract), never host stages.
 */
import { isMainThread, type MessagePort } from "node:worker_threads";
import type { ServeTask, WorkerToHost } from "../contract/rpc.js";
import { serve as serveOn } from "./serve.js";

export default async function serve(task: ServeTask): Promise<void> {
  if (isMainThread) throw new Error("worker/entry must run inside a worker thread");
  const { port, ...rest } = task;
  await serveOn(rest, {
    send: (msg: WorkerToHost) => port.postMessage(msg),
    onMessage: (fn) => port.on("message", fn),
    end(last) {
      port.postMessage(last);
      port.close();
    },
  });
}

export type { MessagePort };
