/**
 * The program that runs inside each thread-isolated plugin worker. tinypool calls the default
 * export once with a ServeTask; the serve loop (serve.ts) answers calls on the task's
 * MessagePort and resolves only when the host asks it to close. It imports leaves only
 * (errors, contract), never host stages. serveOnHostThread is the same loop for "isolation":
 * "host" (spawn/host-runtime.ts), which imports this bundle on the host's own thread.
 */
import { pathToFileURL } from "node:url";
import { isMainThread, type MessagePort } from "node:worker_threads";
import type {
  HostToWorker,
  InstanceTask,
  ResultBatchMessage,
  ServeTask,
  WarmTask,
  WorkerToHost,
} from "../contract/rpc.js";
import { serve as serveOn } from "./serve.js";
import { ResultOutbox, unsendableResult } from "./outbox.js";
import { enableCompileCache } from "./compile-cache.js";
import { adoptHeld, dropPrespawned, prespawn, prespawnedFor } from "./prespawn.js";
import { allowRuntimeTwins, importModule, noteImported } from "./runtime-twin.js";

export default async function serve(task: ServeTask | WarmTask): Promise<number | undefined> {
  if (isMainThread) throw new Error("worker/entry must run inside a worker thread");
  enableCompileCache();
  allowRuntimeTwins();
  // A thread started ahead of its instance starts that instance's server when told to, or takes the
  // one the host's thread started for it (first: it is what the first call waits for), loads what
  // every plugin imports, then waits for it.
  if ("warm" in task) {
    const pid = task.spawn ? (task.held ? adoptHeld(task.spawn, task.held) : prespawn(task.spawn)) : undefined;
    await importModule(pathToFileURL(task.warm).href);
    noteImported(task.warm);
    return await pid;
  }
  const { port, env, ...rest } = task;
  if (prespawnedFor() && !prespawnedFor(rest.instance)) dropPrespawned();
  setEnvironment(env);
  const out = new ResultOutbox((msg) => port.postMessage(msg), unsendableResult(rest.instance));
  await serveOn(rest, {
    send: prespawnedFor() ? untilCreated(out.send) : out.send,
    onMessage: (fn) => port.on("message", fn),
    end(last: WorkerToHost) {
      dropPrespawned();
      out.send(last);
      port.close();
    },
  });
}

/** `send`, which once the instance is created (or failed) kills the server it did not take. */
function untilCreated(send: (msg: WorkerToHost) => void): (msg: WorkerToHost) => void {
  let created = false;
  return (msg) => {
    if (!created && (msg.t === "ready" || msg.t === "init-failed")) {
      created = true;
      dropPrespawned();
    }
    send(msg);
  };
}

/** Makes `env` the thread's whole process.env (a thread's own copy: the host's is untouched). */
function setEnvironment(env: Record<string, string>): void {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
}

/** The plugin's end of a channel that stays on the host's thread (its post must clone, as a port does). */
export interface HostThreadChannel {
  post(msg: WorkerToHost | ResultBatchMessage): void;
  onMessage(fn: (msg: HostToWorker) => void): void;
  /** Called after the last message was posted. */
  end(): void;
}

export async function serveOnHostThread(task: InstanceTask, channel: HostThreadChannel): Promise<void> {
  const out = new ResultOutbox(channel.post, unsendableResult(task.instance));
  await serveOn(task, {
    send: out.send,
    onMessage: channel.onMessage,
    end(last: WorkerToHost) {
      out.send(last);
      channel.end();
    },
    // The console and stdout are the host's here (stdout is the MCP channel under `serve --mcp`):
    // the plugin logs through ctx.log, and the host's own lines must stay the host's.
    ownsConsole: false,
  });
}

export type { MessagePort };
// For thread-entry.ts, which runs this program from its code cache and hands over its missed entry.
export { adoptUnstored, lendImport } from "./runtime-twin.js";
