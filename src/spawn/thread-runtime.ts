/**
 * The default runtime: one tinypool pool of one thread per instance, whose single serve task
 * never ends; calls travel on a persistent MessagePort transferred in that task. The thread may
 * have been started before the instance was known (warm-threads.ts).
 */
import { MessageChannel } from "node:worker_threads";
import { Tinypool } from "tinypool";
import type { InstanceTask, ServeTask } from "../contract/rpc.js";
import { portTransport } from "../rpc/transport.js";
import { REASON_WAIT_MS, sleep, STOP_TIMEOUT_MS, type WorkerRuntime } from "./runtime.js";
import { takeWarmThread, threadPoolOptions } from "./warm-threads.js";

export interface ThreadRuntimeOptions {
  task: InstanceTask;
  /** The thread's whole process.env. */
  env: Record<string, string>;
  maxMemoryMb: number;
  /** A message on tinypool's own channel that was not its ready signal (dropped). */
  onJunk?(what: string): void;
}

export function startThread(opts: ThreadRuntimeOptions): WorkerRuntime {
  const { port1, port2 } = new MessageChannel();
  // A thread started before the config was read (warm-threads.ts), or one of its own.
  const pool =
    takeWarmThread(opts.maxMemoryMb, opts.task, opts.env) ??
    new Tinypool(threadPoolOptions(opts.env, opts.maxMemoryMb));
  let exitReason: string | null = null;
  // The serve task settles only when the thread dies (its rejection carries an out-of-memory or
  // uncaught error) or after the instance closed. A clean process.exit() never settles it: the
  // port's close is what reports that.
  pool
    .run({ ...opts.task, port: port2, env: opts.env } satisfies ServeTask, { transferList: [port2] as never })
    .catch((err: Error) => {
      exitReason = describeExit(err);
    });
  // A dying Worker emits 'error' (which rejects the task) before 'exit': once 'exit' has been
  // seen and the rejection's callbacks have run, the reason is final. The port's close can come
  // first, and by an unbounded margin on a loaded machine.
  const thread = pool.threads[0];
  shieldPoolChannel(thread, opts.task.instance, opts.onJunk);
  let exitCode: number | null = null;
  const exited = new Promise<void>((resolve) =>
    thread
      ? thread.on("exit", (code: number) => {
          exitCode = code;
          setImmediate(resolve);
        })
      : resolve(),
  );
  return {
    transport: portTransport(port1),
    // A clean process.exit() leaves no error behind: its exit code is the only account of it.
    exitReason: () =>
      Promise.race([exited, sleep(REASON_WAIT_MS)]).then(
        () => exitReason ?? (exitCode === null ? null : `its worker exited with code ${exitCode}`),
      ),
    // tinypool's destroy() waits for an 'exit' that a worker which already exited never emits again.
    // Closing our port too: a pool destroyed before its thread took the serve task leaves port2
    // untransferred in this thread, and the pair would hold the host's event loop open forever.
    destroy: () => {
      port1.close();
      return Promise.race([pool.destroy().catch(() => undefined), sleep(STOP_TIMEOUT_MS)]);
    },
  };
}

/**
 * The thread's parentPort is tinypool's own channel, and plugin code can reach it
 * (`require("node:worker_threads").parentPort.postMessage(null)`). tinypool's host-side listener
 * reads each message unchecked (`message.ready`): a null ended the host with a TypeError, and any
 * other junk made it fail the thread as "Unexpected message". Its only legitimate message is
 * `{ ready: true }`, once, before our entry runs; so its listeners are wrapped to see nothing
 * else, and the rest is dropped and reported. The Worker is an EventEmitter: listeners can be
 * swapped after tinypool registered them, before the thread has run any plugin code (the
 * serve task was only just queued).
 */
function shieldPoolChannel(thread: unknown, instance: string, onJunk?: (what: string) => void): void {
  const worker = (thread as { thread?: NodeJS.EventEmitter } | undefined)?.thread;
  if (!worker || typeof worker.listeners !== "function") return;
  for (const listener of worker.listeners("message") as ((m: unknown) => void)[]) {
    worker.off("message", listener);
    worker.on("message", (message: unknown) => {
      if (message !== null && typeof message === "object" && (message as { ready?: unknown }).ready === true)
        return listener(message);
      onJunk?.(`${instance}: dropped a message on the worker pool's own channel (${describeJunk(message)})`);
    });
  }
}

function describeJunk(message: unknown): string {
  if (message === null) return "null";
  if (Array.isArray(message)) return "an array";
  return typeof message;
}

function describeExit(err: Error & { code?: string }): string {
  if (err.code === "ERR_WORKER_OUT_OF_MEMORY") return "its worker ran out of memory";
  return `its worker died: ${err.message.split("\n")[0]}`;
}
