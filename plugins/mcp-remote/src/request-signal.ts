/**
 * The AbortSignal each request hands the SDK: aborted when the caller's signal aborts (the host's
 * deadline or cancel, which makes the SDK send notifications/cancelled) or when the session breaks.
 *
 * Why a signal per request, linked by hand, rather than
 * `AbortSignal.any([ctx.signal, session.broken.signal])`: the SDK adds an abort listener to every
 * request's signal and never removes it, and Node keeps a composite signal that has listeners
 * alive for as long as one of its sources may still abort. The session's signal lives as long as
 * the session, so every request ever sent stayed reachable with its closures (params, handlers,
 * the progress relay): about 8 KB per call, measured, which made garbage collection the largest
 * single cost of a tools/call and grows until the worker's heap limit. A signal of the request's
 * own, with our listener removed when the request settles, is garbage as soon as the request is.
 *
 * Why not an AbortController: on Node 20 creating one costs ~5 µs of CPU (its signal is an
 * EventTarget whose prototype is swapped after construction), more than the rest of mcp-remote's
 * own work on a tools/call. A RequestSignal does what the SDK and this plugin ask of a request's
 * signal (`aborted`, `reason`, `throwIfAborted()`, abort listeners), checked against the SDK by
 * tests/request-signal.test.ts; it is never given to anything else (fetch, AbortSignal.any).
 */

type Listener = (this: unknown, event: { type: "abort" }) => void;

export class RequestSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Listener[] | null = null;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** As an AbortSignal's: only "abort", each listener once (and once only if added twice), none after the abort. */
  addEventListener(type: string, listener: Listener): void {
    if (type !== "abort" || this.aborted || typeof listener !== "function") return;
    this.listeners ??= [];
    if (!this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: Listener): void {
    const i = type === "abort" && this.listeners ? this.listeners.indexOf(listener) : -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = null;
    for (const listener of listeners) {
      try {
        listener.call(this, { type: "abort" });
      } catch (err) {
        // As an EventTarget does: a throwing listener neither stops the others nor the abort.
        process.nextTick(() => {
          throw err;
        });
      }
    }
  }

  /** How the SDK and the request options type it (they use only what this class has). */
  get asAbortSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}

/**
 * The call a request is made for, as its handle (ctx.currentCall()) gives it. A host that has
 * `onAbort` and `aborted` lets a request hear the call's abort without the call's `signal`, which
 * the host makes (an AbortController) only when it is read; an older host's handle has `signal` only.
 */
export interface CallAbort {
  readonly signal: AbortSignal;
  readonly aborted?: boolean;
  onAbort?(listener: (reason: Error) => void): () => void;
}

/** Whether the call has aborted, without making its signal when the host can tell. */
export function callAborted(call: CallAbort): boolean {
  return call.onAbort ? call.aborted === true : call.signal.aborted;
}

export class RequestSignals {
  private readonly live = new Set<RequestSignal>();

  /** As open(), under a call: through its onAbort when the host has it (no AbortSignal made). */
  openFor(call: CallAbort): { signal: AbortSignal; done: () => void } {
    if (!call.onAbort) return this.open(call.signal);
    const signal = new RequestSignal();
    if (call.aborted) {
      signal.abort(call.signal.reason);
      return { signal: signal.asAbortSignal, done: noop };
    }
    const off = call.onAbort((reason) => signal.abort(reason));
    this.live.add(signal);
    return {
      signal: signal.asAbortSignal,
      done: () => {
        off();
        this.live.delete(signal);
      },
    };
  }

  /** A signal for one request under `parent`; call `done()` when the request has settled. */
  open(parent: AbortSignal): { signal: AbortSignal; done: () => void } {
    const signal = new RequestSignal();
    if (parent.aborted) {
      signal.abort(parent.reason);
      return { signal: signal.asAbortSignal, done: noop };
    }
    const onAbort = () => signal.abort(parent.reason);
    parent.addEventListener("abort", onAbort, { once: true });
    this.live.add(signal);
    return {
      signal: signal.asAbortSignal,
      done: () => {
        parent.removeEventListener("abort", onAbort);
        this.live.delete(signal);
      },
    };
  }

  /** Aborts every request still open (the session broke under them). */
  abortAll(reason: Error): void {
    for (const s of this.live) s.abort(reason);
    this.live.clear();
  }

  /** Requests open now (for tests: none may stay behind after they settle). */
  get size(): number {
    return this.live.size;
  }
}

const noop = () => {};
