/**
 * "isolation": "host": a bundled plugin's serve loop runs on the host's own thread. What it saves
 * is the thread hop of every call (a postMessage wake-up each way, the worker's event loop, a
 * second V8 heap), a large share of what a call through `serve --mcp` cost above a direct client.
 *
 * The host's side does not change: the same RpcClient (deadlines, cancellation) and the same
 * check of every message the plugin sends, as untrusted input. Messages still cross as copies
 * (what structured clone makes, each way), so neither side can keep or change an object the
 * other holds, and what cannot be cloned fails as it does over a port. What a thread gave and this cannot:
 * a heap limit, an env limited to the manifest's permissions.env, and a way to stop a stuck
 * plugin (a busy loop freezes the host). So only Patchbay's own plugins may run here
 * (docs/isolation.md); a restart after a crash is a new instance of the plugin on the same thread.
 */
import { AsyncResource } from "node:async_hooks";
import { pathToFileURL } from "node:url";
import type { HostToWorker, InstanceTask, ResultBatchMessage, WorkerToHost } from "../contract/rpc.js";
import { workerEntryPath } from "../paths.js";
import type { RpcTransport } from "../rpc/transport.js";
import { hostIsolationRefusal } from "../discovery/host-isolation.js";
import type { HostThreadChannel } from "../worker/entry.js";
import { copyMessage } from "./plain-copy.js";
import { sleep, STOP_TIMEOUT_MS, type WorkerRuntime } from "./runtime.js";

/** The runtime bundle's thread entry, imported once: every host-isolated instance runs its serve loop. */
let entry: Promise<{ serveOnHostThread(task: InstanceTask, channel: HostThreadChannel): Promise<void> }> | null = null;

export function startOnHostThread(task: InstanceTask): WorkerRuntime {
  const refused = hostIsolationRefusal(task);
  if (refused) throw refused;
  const pipe = new InThreadPipe();
  let reason: string | null = null;
  // A failed import is not kept: the next start (a restart, a reload after `npm run build`) tries again.
  entry ??= import(pathToFileURL(workerEntryPath()).href).catch((err: unknown) => {
    entry = null;
    throw err;
  });
  // Settles when the serve loop ends: after the instance closed, or at once when loading failed.
  const served = entry
    .then((mod) => mod.serveOnHostThread(task, pipe.pluginEnd))
    .catch((err: unknown) => {
      // The serve loop's own failure (never a plugin's error, which it reports as init-failed or a result).
      reason = `its serve loop failed: ${String((err as Error)?.message ?? err).split("\n")[0]}`;
      pipe.close();
    });
  return {
    transport: pipe.hostEnd,
    exitReason: () => Promise.resolve(reason ?? pipe.failure),
    // Nothing to terminate: the plugin is told to close (so it ends what it started, an MCP
    // server's child among them) and the host stops listening to it either way.
    destroy: async () => {
      if (!pipe.closed) pipe.pluginEnd.deliverClose();
      pipe.close();
      await Promise.race([served, sleep(STOP_TIMEOUT_MS)]);
    },
  };
}

/**
 * A channel whose two ends live on one thread. Each message is a copy of what was posted, as
 * structured clone makes it (plain-copy.ts; so post throws on what a port would refuse, and the
 * receiver owns its copy: the plugin cannot change a result after the host checked it),
 * delivered in order, later: never inside post(), so neither side runs the other's handler in the
 * middle of its own turn. One drain per direction and turn, on a promise job rather than a
 * macrotask: the turn-batching on both sides (contract/turn-batch.ts) already ends its turn at a
 * microtask checkpoint, and a macrotask would put the event loop's I/O phase between every call
 * and its answer. Handlers run in the async context of the channel's creation, as a port's
 * listeners do, so neither side inherits the other's (the host's callers, the plugin's call scopes).
 *
 * Why not a MessageChannel with both ports on this thread: measured interleaved (host.call to
 * mcp-remote in front of the demo server, 11 rounds), it cost ~8% more CPU per call than this
 * channel with structuredClone, which plain-copy.ts then cut by ~10 µs per message.
 */
class InThreadPipe {
  closed = false;
  private toPlugin: ((msg: HostToWorker) => void) | null = null;
  private readonly early: HostToWorker[] = [];
  private toHost: ((msg: unknown) => void) | null = null;
  private readonly onClose: (() => void)[] = [];
  private readonly scope = new AsyncResource("PatchbayHostThreadChannel");
  /** Why the channel broke on its own (a handler threw), for exitReason. */
  failure: string | null = null;
  private readonly fail = (err: unknown): void => {
    this.failure ??= `its serve loop threw: ${String((err as Error)?.message ?? err).split("\n")[0]}`;
    this.close();
  };
  private readonly forPlugin = new Inbox(this.scope, (msg) => this.deliverToPlugin(msg as HostToWorker), this.fail);
  // The CLOSE marker ends the channel where it stands in the queue: after the serve loop's last message.
  private readonly forHost = new Inbox(
    this.scope,
    (msg) => (msg === CLOSE ? this.close() : this.closed ? undefined : this.toHost?.(msg)),
    this.fail,
  );

  readonly hostEnd: RpcTransport = {
    post: (msg) => {
      const copy = copyMessage(msg);
      if (!this.closed) this.forPlugin.push(copy);
    },
    onMessage: (fn) => void (this.toHost = fn),
    // A copy shares a SharedArrayBuffer as a port does: results are copied out of it on the host.
    sharedMemory: true,
    onClose: (fn) => void this.onClose.push(fn),
  };

  readonly pluginEnd: HostThreadChannel & { deliverClose(): void } = {
    post: (msg: WorkerToHost | ResultBatchMessage) => {
      const copy: unknown = copyMessage(msg);
      if (!this.closed) this.forHost.push(copy);
    },
    onMessage: (fn) => {
      this.toPlugin = fn;
      for (const msg of this.early.splice(0)) fn(msg);
    },
    // The serve loop ended its channel: the host hears the close after its last message.
    end: () => this.forHost.push(CLOSE),
    deliverClose: () => this.deliverToPlugin({ t: "close" }),
  };

  private deliverToPlugin(msg: HostToWorker): void {
    if (this.closed) return;
    if (this.toPlugin) this.toPlugin(msg);
    else this.early.push(msg);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.onClose.splice(0)) fn();
  }
}

const CLOSE = Symbol("close");

/** One direction's queue: messages posted in a turn are delivered together, in order, by one promise job. */
class Inbox {
  private queue: unknown[] = [];
  private scheduled = false;
  private readonly drain = (): void => {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    this.scope.runInAsyncScope(() => {
      for (const msg of batch) {
        try {
          this.deliver(msg);
        } catch (err) {
          // The host's handler checks and catches everything; the serve loop's is Patchbay's own.
          // Either throwing is a broken channel, as an uncaught error ends a worker thread: never the host.
          this.onThrow(err);
          return;
        }
      }
    });
  };

  constructor(
    private readonly scope: AsyncResource,
    private readonly deliver: (msg: unknown) => void,
    private readonly onThrow: (err: unknown) => void,
  ) {}

  push(msg: unknown): void {
    this.queue.push(msg);
    if (this.scheduled) return;
    this.scheduled = true;
    void RESOLVED.then(this.drain);
  }
}

const RESOLVED = Promise.resolve();
