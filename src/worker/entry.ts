/**
 * The program that runs inside each thread-isolated plugin worker. tinypool calls the default
 * export once with a ServeTask; the serve loop (serve.ts) answers calls on the task's
 * MessagePort and resolves only when the host asks it to close. It imports leaves only
 * (errors, contract), never host stages.
 */
import { isMainThread, type MessagePort } from "node:worker_threads";
import type { ServeTask, WorkerToHost } from "../contract/rpc.js";
import { serve as serveOn } from "./serve.js";
import { ResultOutbox, unsendableResult } from "./outbox.js";

export default async function serve(task: ServeTask): Promise<void> {
  if (isMainThread) throw new Error("worker/entry must run inside a worker thread");
  const { port, ...rest } = task;
  const out = new ResultOutbox((msg) => port.postMessage(msg), unsendableResult(rest.instance));
  await serveOn(rest, {
    send: out.send,
    onMessage: (fn) => port.on("message", fn),
    end(last: WorkerToHost) {
      out.send(last);
      port.close();
    },
  });
}

export type { MessagePort };
