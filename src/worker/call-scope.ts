/**
 * Which call a plugin's ctx is serving: CallScope, one call in progress (its deadline, its abort
 * and listeners, its progress), and CallTracker, which finds the call in progress for one
 * instance's ctx, through AsyncLocalStorage by default, or, for a plugin defined with
 * `callContext: "sync"`, only while its method runs synchronously.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { WorkerToHost } from "../contract/rpc.js";
import { isTraceparent } from "../contract/trace-context.js";
import { CallSpans } from "./plugin-spans.js";

/** Posts one message to the host, over whichever channel carries this worker (a port or a child's socket). */
export type Send = (msg: WorkerToHost) => void;

/** A progress report (patchbay/plugin's CallHandle.progress takes the same; the worker imports leaves only). */
export type Update = { progress: number; total?: number; message?: string };

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

  /** The call's span recorder when it came traced (plugin-spans.ts); null costs untraced calls nothing more. */
  readonly spans: CallSpans | null;

  constructor(
    readonly deadline: number,
    readonly id: number,
    private readonly send: Send,
    traceparent?: unknown,
  ) {
    // Checked here too: the worker trusts nothing it did not check, and a plugin passes it upstream.
    this.spans = traceparent !== undefined && isTraceparent(traceparent) ? new CallSpans(traceparent) : null;
  }

  /** W3C traceparent of the host's span for this call, when it is traced. */
  get traceparent(): string | undefined {
    return this.spans?.traceparent;
  }

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
