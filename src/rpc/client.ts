/**
 * The host's end of one worker's persistent channel: id-correlated calls with deadlines,
 * cancellation, and rejection of every pending call the moment the worker goes away. The channel
 * is a small transport (a thread's MessagePort, a child process's framed socket), so both
 * isolation modes share every rule here. Every path that settles a call (answer, batch, timeout,
 * cancel, worker gone) is here, next to the pending-call table it settles, so each can be read
 * against the others to see that a call settles exactly once. What a message carries besides a
 * call's answer is apart: progress (progress-types.ts, progress-gate.ts), the resource-update
 * rate cap (resource-updates.ts), a traced call's plugin spans (call-spans.ts).
 */
import { fromWire, pbError, type PatchbayError, type WireError } from "../errors.js";
import type { CallMessage, HostToWorker, WorkerToHost } from "../contract/rpc.js";
import {
  checkBatch,
  checkBatchEntry,
  checkResultValue,
  checkWorkerMessage,
  isBatch,
  isWireError,
} from "../contract/rpc-check.js";
import { DeadlineWheel } from "./deadlines.js";
import { CallOutbox } from "./outbox.js";
import { ProgressGate } from "./progress-gate.js";
import { readProgress, type ProgressUpdate } from "./progress-types.js";
import { ResourceUpdateCap } from "./resource-updates.js";
import type { RpcTransport } from "./transport.js";
import { deliverSpans, traced, type CallTrace } from "./call-spans.js";

export type { ProgressUpdate } from "./progress-types.js";

interface Pending {
  method: string;
  /** Absolute (Date.now() clock); the deadline wheel reads it from here. */
  deadline: number;
  timeoutMs: number;
  onProgress?: (update: ProgressUpdate) => void;
  /** Paces this call's progress (progress-gate.ts); made at its first report. */
  gate?: ProgressGate;
  /** Set when the call is traced, until its plugin's spans arrive (once per call). */
  trace?: CallTrace;
  resolve(value: unknown): void;
  reject(err: PatchbayError): void;
}

export interface RpcClientOptions {
  instance: string;
  /** Messages that are not call results (logs, grant calls, lifecycle) go here. */
  onMessage(msg: WorkerToHost): void;
  /** How long a cancelled call may take to settle before the worker counts as stuck. */
  graceMs: number;
  /** A cancelled call did not settle within the grace period (a busy loop, a hung native call). */
  onStuck(method: string): void;
  /** The channel closed: the worker is gone (or was stopped). */
  onClose(): void;
  /** A message failed its check (it was dropped) or handling it threw; `why` names what was wrong. */
  onMalformed(why: string): void;
}

export class RpcClient {
  private readonly pending = new Map<number, Pending>();
  private readonly wheel: DeadlineWheel;
  /** Calls the host gave up on, still waiting for the plugin to notice its cancellation. */
  private readonly cancelled = new Map<number, NodeJS.Timeout>();
  private nextId = 1;
  private readonly outbox: CallOutbox;
  private closedError: PatchbayError | null = null;
  /** Resource updates pass on to the instance's onMessage under a rate cap. */
  private readonly updates: ResourceUpdateCap;

  constructor(
    private readonly transport: RpcTransport,
    private readonly opts: RpcClientOptions,
  ) {
    this.updates = new ResourceUpdateCap((msg) => opts.onMessage(msg));
    this.wheel = new DeadlineWheel(this.pending, (id) => this.expire(id));
    this.outbox = new CallOutbox(
      (msg) => transport.post(msg),
      (msg, err) => this.unsendable(msg, err),
    );
    transport.onMessage((raw: unknown) => {
      if (!isBatch(raw)) return this.receive(raw, false);
      // A batch: its envelope first, then each entry exactly as a lone message would be.
      const batch = checkBatch(raw);
      if (!batch.ok) return this.malformed(batch.why);
      const { msgs } = batch;
      for (let i = 0; i < msgs.length; i++) this.receive(msgs[i], true);
    });
    transport.onClose(() => opts.onClose());
  }

  /** One raw message, or one raw entry of a batch (which may only be a result). */
  private receive(raw: unknown, inBatch: boolean): void {
    const { opts, transport } = this;
    // Nothing a worker sends may throw in the host: check first, and catch what handling throws.
    try {
      const checked = inBatch ? checkBatchEntry(raw) : checkWorkerMessage(raw);
      if (!checked.ok) return opts.onMalformed(checked.why);
      const msg = checked.msg;
      if (msg.t === "progress") return this.progress(msg);
      if (msg.t === "resource-updated") return this.updates.offer(msg);
      if (msg.t === "spans") return this.spans(msg.id, msg.spans);
      if (msg.t !== "result") return opts.onMessage(msg);
      if (msg.ok) {
        const checked = checkResultValue(msg.value, transport.sharedMemory === true);
        if (checked.ok) return this.settle(msg.id, true, checked.value);
        const method = this.pending.get(msg.id)?.method ?? "a method";
        return this.settle(
          msg.id,
          false,
          undefined,
          undefined,
          pbError(checked.code, `${opts.instance}.${method}(): the result ${checked.why}, which JSON cannot carry.`, {
            instance: opts.instance,
            method,
          }),
        );
      }
      if (isWireError(msg.error)) return this.settle(msg.id, false, undefined, msg.error);
      // The call still settles (never a hang), as the plugin breaking its contract.
      opts.onMalformed(`a failed result for call ${msg.id} without a valid error`);
      this.settle(
        msg.id,
        false,
        undefined,
        undefined,
        pbError(
          "PB_ERR_CONTRACT_VIOLATION",
          `${opts.instance}: the plugin sent a failed result without a valid error.`,
          { instance: opts.instance },
        ),
      );
    } catch (err) {
      this.malformed(`handling its message threw: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  /** onMalformed is the host's own code, but a batch loop must not be cut short by it either. */
  private malformed(why: string): void {
    try {
      this.opts.onMalformed(why);
    } catch {
      // Counting a malformed message failed: nothing more to do for it.
    }
  }

  get inflight(): number {
    return this.pending.size;
  }

  call(
    method: string,
    args: unknown[],
    timeoutMs: number,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
    trace?: CallTrace,
  ): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    if (signal?.aborted) return Promise.reject(this.cancelledError(method));
    const id = this.nextId++;
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve, reject) => {
      const p: Pending = { method, deadline, timeoutMs, resolve, reject, onProgress };
      if (signal) {
        // The caller withdraws the call: the same path as a deadline, with the caller's code (the listener goes
        // with the call).
        const onAbort = (): void => this.abandon(id, this.cancelledError(method), "the caller cancelled it", false);
        signal.addEventListener("abort", onAbort, { once: true });
        p.resolve = (v) => (signal.removeEventListener("abort", onAbort), resolve(v));
        p.reject = (e) => (signal.removeEventListener("abort", onAbort), reject(e));
      }
      this.pending.set(id, p);
      this.wheel.add(deadline);
      // Queued: it leaves with the other calls of this turn at the next microtask checkpoint (outbox.ts).
      if (!traced(trace)) return this.outbox.call({ t: "call", id, method, args, deadline });
      p.trace = trace;
      this.outbox.call({ t: "call", id, method, args, deadline, tp: trace.traceparent });
    });
  }

  /** To the worker: a call is queued for the turn's batch; any other message leaves now, after the calls before it. */
  post(msg: HostToWorker): void {
    if (msg.t === "call") return this.outbox.call(msg);
    try {
      this.outbox.send(msg as Exclude<HostToWorker, CallMessage>);
    } catch {
      // A grant result that cannot be cloned: the grant path sends plain data (checked results); nothing else fails.
    }
  }

  /** A call whose arguments structured clone cannot carry fails alone, as it did when post threw inside call(). */
  private unsendable(msg: CallMessage, err: unknown): void {
    this.settle(
      msg.id,
      false,
      undefined,
      undefined,
      pbError(
        "PB_ERR_CONTRACT_ARGS",
        `${this.opts.instance}.${msg.method}(): the arguments cannot be sent to the plugin (they must be plain data): ` +
          ((err as Error)?.message ?? String(err)),
        { instance: this.opts.instance, method: msg.method },
      ),
    );
  }

  /** Rejects every pending call with `err` and refuses new ones. */
  rejectAll(err: PatchbayError): void {
    this.closedError ??= err;
    this.outbox.clear();
    this.wheel.clear();
    for (const t of this.cancelled.values()) clearTimeout(t);
    this.cancelled.clear();
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) {
      p.gate?.drop();
      p.reject(err);
    }
  }

  /** Resource updates dropped by the rate cap, over this channel's life. */
  get droppedUpdates(): number {
    return this.updates.droppedTotal;
  }

  /** A worker's progress report: only for a pending call that asked for progress; malformed ones are dropped. */
  private progress(msg: { id: unknown; progress: unknown; total?: unknown; message?: unknown }): void {
    const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
    if (!p?.onProgress) return;
    const update = readProgress(msg);
    if (update) (p.gate ??= new ProgressGate(p.onProgress)).offer(update);
  }

  /** A traced call's span records (call-spans.ts): only for a pending call sent traced, once. */
  private spans(id: number, raw: unknown): void {
    const p = this.pending.get(id);
    if (p?.trace) deliverSpans(p.trace, raw, p.deadline - p.timeoutMs);
    if (p) p.trace = undefined;
  }

  private expire(id: number): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.abandon(
      id,
      pbError("PB_ERR_CALL_TIMEOUT", `${this.opts.instance}.${p.method}() did not finish within ${p.timeoutMs} ms.`, {
        instance: this.opts.instance,
        method: p.method,
        timeout_ms: p.timeoutMs,
      }),
      `deadline of ${p.timeoutMs} ms passed`,
    );
  }

  private cancelledError(method: string): PatchbayError {
    return pbError("PB_ERR_CALL_CANCELLED", `${this.opts.instance}.${method}() was cancelled by its caller.`, {
      instance: this.opts.instance,
      method,
    });
  }

  /**
   * The host gives up on a call (deadline, or the caller's signal): it fails now, and the worker
   * is told to stop it. Only a deadline makes a call that then runs on past the grace period
   * count as stuck (a restart): a caller cancelling must never be a way to restart a worker.
   */
  private abandon(id: number, err: PatchbayError, reason: string, watchStuck = true): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.gate?.drop();
    p.reject(err);
    // Still queued (it never reached the worker): nothing to cancel there, nothing to wait for.
    if (this.outbox.drop(id)) return;
    this.post({ t: "cancel", id, reason });
    if (!watchStuck) return;
    const grace = setTimeout(() => {
      if (this.cancelled.delete(id)) this.opts.onStuck(p.method);
    }, this.opts.graceMs);
    grace.unref();
    this.cancelled.set(id, grace);
  }

  private settle(id: number, ok: boolean, value: unknown, wire?: WireError, local?: PatchbayError): void {
    const grace = this.cancelled.get(id);
    if (grace) {
      // The plugin noticed its cancellation: it is responsive, its late answer is dropped.
      clearTimeout(grace);
      this.cancelled.delete(id);
      return;
    }
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.gate?.flush();
    if (ok) p.resolve(value);
    else p.reject(local ?? fromWire(wire!));
  }
}
