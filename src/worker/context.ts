/**
 * The PluginContext a plugin's create() receives. `signal`, `remainingMs()`, `progress()` and
 * `currentCall()` read the call in progress, so one ctx object serves every concurrent call
 * correctly: through AsyncLocalStorage by default, or, for a plugin defined with
 * `callContext: "sync"`, only while its method runs synchronously (CallTracker).
 *
 * Slightly longer than 300 lines on purpose: CallScope (a call's deadline, abort and listeners),
 * both ways of finding the call in progress and the ctx that reads them answer one question,
 * which call this is, and a change to one must be read against the others.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { isMainThread } from "node:worker_threads";
import { fromWire, pbError } from "../errors.js";
import {
  CHANGEABLE_LISTS,
  MAX_RESOURCE_URI_CHARS,
  type ChangeableList,
  type GrantResultMessage,
  type LogMessage,
  type WorkerToHost,
} from "../contract/rpc.js";

/** A progress report (patchbay/plugin's CallHandle.progress takes the same; the worker imports leaves only). */
type Update = { progress: number; total?: number; message?: string };

/**
 * One call in progress, and the handle ctx.currentCall() gives the plugin. The AbortController
 * is made only when the plugin reads the signal: most calls never do, and creating one costs
 * several microseconds on Node 20 (a large share of a round trip).
 */
export class CallScope {
  private controller: AbortController | null = null;
  private reason: Error | null = null;
  /** onAbort's listeners: an AbortController's without the AbortController. */
  private listeners: ((reason: Error) => void)[] | null = null;

  constructor(
    readonly deadline: number,
    readonly id: number,
    private readonly send: Send,
  ) {}

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.reason && !this.controller.signal.aborted) this.controller.abort(this.reason);
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.reason !== null;
  }

  onAbort(listener: (reason: Error) => void): () => void {
    if (this.reason) return noop;
    (this.listeners ??= []).push(listener);
    return () => {
      const i = this.listeners?.indexOf(listener) ?? -1;
      if (i >= 0) this.listeners!.splice(i, 1);
    };
  }

  /** The runtime's, not the plugin's: the host cancelled the call, or the instance closes. */
  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners ?? [];
    this.listeners = null;
    for (const listener of listeners) {
      try {
        listener(reason);
      } catch (err) {
        // As an AbortSignal's listener: a throwing one neither stops the others nor the abort.
        process.nextTick(() => {
          throw err;
        });
      }
    }
  }

  readonly progress = (update: Update): void => {
    if (!update || typeof update.progress !== "number") return;
    const msg: WorkerToHost = { t: "progress", id: this.id, progress: update.progress };
    if (typeof update.total === "number") msg.total = update.total;
    if (typeof update.message === "string") msg.message = update.message;
    this.send(msg);
  };
}

const noop = (): void => {};

/** Shared by every instance on a thread: its hooks are enabled once, at the first tracked call. */
const callScope = new AsyncLocalStorage<CallScope>();

/**
 * Which call is in progress for one instance's ctx. Tracked across awaits (AsyncLocalStorage)
 * unless the plugin said it reads the call only synchronously: on Node 20 the first
 * AsyncLocalStorage.run() turns on promise hooks for the whole thread, for good, which costs
 * every promise on it, and with "isolation": "host" that thread is the host's own.
 */
export class CallTracker {
  /** Set once the plugin's definition is known: false for `callContext: "sync"`. */
  acrossAwaits = true;
  private syncCall: CallScope | null = null;

  /** Runs the plugin's method `fn` as call `scope`. */
  run<T>(scope: CallScope, fn: () => T): T {
    if (this.acrossAwaits) return callScope.run(scope, fn);
    const outer = this.syncCall;
    this.syncCall = scope;
    try {
      return fn();
    } finally {
      this.syncCall = outer;
    }
  }

  current(): CallScope | null {
    return this.acrossAwaits ? (callScope.getStore() ?? null) : this.syncCall;
  }
}

type Level = LogMessage["level"];

/** Posts one message to the host, over whichever channel carries this worker (a port or a child's socket). */
export type Send = (msg: WorkerToHost) => void;

/**
 * The first cap on a log flood, where it is cheapest: lines over the rate are dropped
 * here, before they are serialized, so a million ctx.log calls cost the host nothing. The host
 * caps again (spawn/log-limit.ts, same numbers), for a plugin that posts on its channel directly.
 */
const LINES_PER_WINDOW = 1_000;
const WINDOW_MS = 1_000;
/** Per channel: a group thread hosts several instances, each with its own send and its own budget. */
const budgets = new WeakMap<Send, { windowStart: number; inWindow: number; dropped: number }>();

function sendLog(send: Send, level: Level, msg: unknown, data?: unknown): void {
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

export interface ContextOptions {
  send: Send;
  instance: string;
  grants: readonly string[];
  /** Aborts when the instance closes; the signal seen outside any call. */
  instanceSignal: AbortSignal;
  calls: CallTracker;
}

export function createContext(opts: ContextOptions) {
  const { send, instance, grants, calls } = opts;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  let nextId = 1;

  const onGrantResult = (msg: GrantResultMessage) => {
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.ok) waiter.resolve(msg.value);
    else waiter.reject(fromWire(msg.error!));
  };

  // (msg, data) is the documented order; pino's (data, msg) is accepted too, since authors reach for it.
  const at = (level: Level) => (a: unknown, b?: unknown) =>
    typeof a !== "string" && typeof b === "string" ? sendLog(send, level, b, a) : sendLog(send, level, a, b);
  const log = Object.freeze({
    trace: at("trace"),
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  });

  const connectors = Object.freeze({
    list: () => [...grants],
    get(target: string) {
      if (!grants.includes(target)) {
        throw pbError(
          "PB_ERR_GRANT_DENIED",
          `${instance} may not call "${target}": it is not granted (granted: ${grants.join(", ") || "none"}).`,
          { instance, target },
        );
      }
      return new Proxy(
        {},
        {
          get: (_t, method) =>
            typeof method !== "string" || method === "then"
              ? undefined
              : (...args: unknown[]) =>
                  new Promise((resolve, reject) => {
                    const id = nextId++;
                    pending.set(id, { resolve, reject });
                    send({ t: "grant-call", id, target, method, args });
                  }),
        },
      );
    },
  });

  const ctx = Object.freeze({
    instance,
    log,
    connectors,
    get signal(): AbortSignal {
      return calls.current()?.signal ?? opts.instanceSignal;
    },
    remainingMs(): number {
      const scope = calls.current();
      return scope ? Math.max(0, scope.deadline - Date.now()) : Infinity;
    },
    /** Reports progress of the call in progress to its caller (a no-op outside a call). */
    progress(update: Update): void {
      calls.current()?.progress(update);
    },
    currentCall(): CallScope | null {
      return calls.current();
    },
    /** A subscribed resource changed (any time, not only in a call); a URI the host would refuse is not sent. */
    resourceUpdated(uri: string): void {
      if (typeof uri !== "string" || uri.length === 0 || uri.length > MAX_RESOURCE_URI_CHARS) return;
      send({ t: "resource-updated", uri });
    },
    /** An offered list (tools, prompts, resources) changed; the host reads it again. */
    listChanged(list: ChangeableList): void {
      if ((CHANGEABLE_LISTS as readonly unknown[]).includes(list)) send({ t: "list-changed", list });
    },
  });
  return { ctx, onGrantResult };
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
