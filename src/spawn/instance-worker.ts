// One file on purpose: every transition of the lifecycle state machine is in this one class (see below).
/**
 * One plugin instance's worker, whichever runtime carries it (start-runtime.ts picks one:
 * thread-runtime.ts: tinypool and a persistent MessagePort; process-runtime.ts: a forked child under
 * Node's permission model; host-runtime.ts: a bundled plugin on the host's own thread); calls travel
 * through rpc/client.ts every way. An explicit state machine owns the lifecycle:
 *
 *   idle → starting → ready → stopping → stopped
 *                  ↘ failed      ↘ restarting → starting (after a crash, with backoff)
 *                                 ↘ failed (circuit open: too many crashes)
 *
 * Longer than 300 lines on purpose: every transition of that machine is in this one class, next to
 * the others it races with (a crash during start, a stop during restart); spread over files, the
 * guard that keeps two of them from overlapping would be out of sight of the one it guards. What
 * is not a transition is apart: which runtime to start (start-runtime.ts), the restart backoff and
 * circuit (restart-policy.ts), the log rate cap (log-limit.ts).
 */
import { pbError, PatchbayError, fromWire } from "../errors.js";
import type { ChangeableList, GrantCallMessage, LogMessage, WorkerToHost } from "../contract/rpc.js";
import { RpcClient, type ProgressUpdate } from "../rpc/client.js";
import type { CallTrace } from "../rpc/call-spans.js";
import { RestartPolicy } from "./restart-policy.js";
import { sleep, STOP_TIMEOUT_MS, type WorkerRuntime } from "./runtime.js";
import { startRuntime, type RuntimeOptions } from "./start-runtime.js";
import { LogLimiter } from "./log-limit.js";
import { guardInspectorSignal } from "./inspector-guard.js";

/** Malformed messages one worker may send before it is restarted as misbehaving. */
export const MALFORMED_LIMIT = 10;

export type WorkerState = "idle" | "starting" | "ready" | "restarting" | "stopping" | "stopped" | "failed";

export interface InstanceWorkerOptions extends RuntimeOptions {
  startTimeoutMs: number;
  graceMs: number;
  restartPolicy?: RestartPolicy;
  onLog(msg: LogMessage): void;
  onSecrets(values: string[]): void;
  onGrantCall(msg: GrantCallMessage): Promise<unknown>;
  /** A subscribed resource changed (already checked and rate-capped by RpcClient). */
  onResourceUpdated?(uri: string): void;
  /** The plugin said an offered list changed (already checked by rpc-check.ts). */
  onListChanged?(list: ChangeableList): void;
  onStateChange?(state: WorkerState, reason?: PatchbayError): void;
}

export class InstanceWorker {
  state: WorkerState = "idle";
  /** Why the instance is failed, or the last crash. */
  lastError: PatchbayError | null = null;
  private runtime: WorkerRuntime | null = null;
  private client: RpcClient | null = null;
  private ready: Promise<void> | null = null;
  private generation = 0;
  private readonly policy: RestartPolicy;
  private readonly logs: LogLimiter;
  /** Malformed messages dropped over the instance's lifetime, and in the current worker. */
  malformed = 0;
  private malformedNow = 0;

  constructor(private readonly opts: InstanceWorkerOptions) {
    this.policy = opts.restartPolicy ?? new RestartPolicy();
    this.logs = new LogLimiter((msg) => opts.onLog(msg));
    guardInspectorSignal();
  }

  /** Log lines dropped by the per-instance rate cap. */
  get droppedLogs(): number {
    return this.logs.dropped;
  }

  get instance(): string {
    return this.opts.task.instance;
  }

  /** Starts the worker; resolves when the plugin is created and ready, rejects with its load or config error. */
  start(): Promise<void> {
    this.setState("starting");
    this.ready = this.spawn();
    return this.ready;
  }

  call(
    method: string,
    args: unknown[],
    timeoutMs: number,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
    trace?: CallTrace,
  ): Promise<unknown> {
    // The hot path: a ready worker's call goes straight to its client, with no promise of ours.
    if (this.state === "ready" && this.client)
      return this.client.call(method, args, timeoutMs, onProgress, signal, trace);
    return this.callWhenReady(method, args, timeoutMs, onProgress, signal, trace);
  }

  private async callWhenReady(
    method: string,
    args: unknown[],
    timeoutMs: number,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
    trace?: CallTrace,
  ): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    if (this.state === "restarting" || this.state === "starting") {
      await withDeadline(this.ready!, deadline, () => this.timeoutError(method, timeoutMs)).catch((err) => {
        throw err instanceof PatchbayError && err.code === "PB_ERR_CALL_TIMEOUT" ? err : this.unavailableError();
      });
    }
    if (this.state !== "ready" || !this.client) throw this.unavailableError();
    return this.client.call(method, args, Math.max(1, deadline - Date.now()), onProgress, signal, trace);
  }

  async stop(): Promise<void> {
    if (this.state === "stopped" || this.state === "stopping") return;
    const wasRunning = this.state === "ready" && this.client;
    this.setState("stopping");
    const client = this.client;
    if (wasRunning && client) {
      const closed = new Promise<void>((resolve) => (this.onClosed = resolve));
      client.post({ t: "close" });
      // A worker stuck in a busy loop never answers: give it the same grace as a cancelled call.
      await Promise.race([closed, sleep(Math.min(STOP_TIMEOUT_MS, this.opts.graceMs))]);
    }
    const closedErr = pbError("PB_ERR_HOST_CLOSED", `${this.instance} was stopped.`, { instance: this.instance });
    client?.rejectAll(closedErr);
    // Stopped while a (re)start is under way: end that start now rather than at its start timeout.
    this.abortStart?.(closedErr);
    await this.destroyRuntime();
    this.setState("stopped");
  }

  private onClosed: (() => void) | null = null;
  private abortStart: ((err: PatchbayError) => void) | null = null;

  private async spawn(): Promise<void> {
    const generation = ++this.generation;
    this.malformedNow = 0;
    let runtime: WorkerRuntime;
    try {
      runtime = this.startRuntime();
    } catch (err) {
      // A runtime that cannot start at all (no usable bwrap): a coded failure, never a downgrade.
      this.lastError = err as PatchbayError;
      this.setState("failed", err as PatchbayError);
      throw err;
    }
    this.runtime = runtime;
    let settleStart!: (err?: PatchbayError) => void;
    const started = new Promise<void>((resolve, reject) => (settleStart = (err) => (err ? reject(err) : resolve())));
    this.abortStart = settleStart;

    const client = new RpcClient(runtime.transport, {
      instance: this.instance,
      graceMs: this.opts.graceMs,
      onMessage: (msg) => this.onMessage(msg, client, settleStart),
      onMalformed: (why) => this.onMalformed(generation, why, settleStart),
      onStuck: (method) =>
        void this.crashed(
          generation,
          `it did not stop ${method}() within ${this.opts.graceMs} ms of its deadline, so its worker was terminated`,
        ),
      onClose: () => {
        if (this.onClosed) return this.onClosed();
        // Let the runtime learn why (the serve task's rejection, the child's stderr) first.
        void runtime.exitReason().then((why) => {
          const reason = why ?? "its worker exited";
          settleStart(
            pbError("PB_ERR_PLUGIN_CRASHED", `${this.instance}: ${reason} before it was ready.`, {
              instance: this.instance,
            }),
          );
          void this.crashed(generation, reason);
        });
      },
    });
    this.client = client;

    const timer = setTimeout(
      () =>
        settleStart(
          pbError(
            "PB_ERR_PLUGIN_START_TIMEOUT",
            `${this.instance}: the plugin was not ready within ${this.opts.startTimeoutMs} ms.`,
            { instance: this.instance },
          ),
        ),
      this.opts.startTimeoutMs,
    );
    try {
      await started;
      if (generation === this.generation && this.state !== "stopping") this.setState("ready");
    } catch (err) {
      this.lastError = err as PatchbayError;
      if (generation === this.generation && this.state !== "stopping" && this.state !== "stopped") {
        await this.destroyRuntime();
        this.setState("failed", err as PatchbayError);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      if (this.abortStart === settleStart) this.abortStart = null;
    }
  }

  /** This instance's runtime; a thread's junk is logged like a malformed message, a child's output as its log. */
  private startRuntime(): WorkerRuntime {
    let junk = 0;
    return startRuntime(this.opts, {
      // Logged like a malformed message (the first few per thread), never acted on: it never reaches tinypool.
      onJunk: (msg) =>
        void (++junk <= MALFORMED_LIMIT && this.opts.onLog({ t: "log", level: "warn", msg, data: { junk } })),
      onOutput: (stream, line) =>
        this.logs.push({ t: "log", level: stream === "stderr" ? "warn" : "info", msg: line, data: { stream } }),
    });
  }

  /** A dropped message: logged with the instance's name, counted; too many and the worker is replaced. */
  private onMalformed(generation: number, why: string, settleStart: (err?: PatchbayError) => void): void {
    if (generation !== this.generation) return;
    this.malformed++;
    const n = ++this.malformedNow;
    if (n <= MALFORMED_LIMIT)
      this.opts.onLog({
        t: "log",
        level: "warn",
        msg: `${this.instance}: dropped a malformed message from its worker (${why})`,
        data: { malformed: n },
      });
    if (n !== MALFORMED_LIMIT) return;
    const reason = `it sent ${n} malformed messages (last: ${why})`;
    if (this.state === "starting") {
      settleStart(
        pbError("PB_ERR_PLUGIN_MISBEHAVING", `${this.instance}: ${reason}.`, { instance: this.instance, reason }),
      );
      return;
    }
    void this.crashed(generation, reason, "PB_ERR_PLUGIN_MISBEHAVING");
  }

  private onMessage(msg: WorkerToHost, client: RpcClient, settleStart: (err?: PatchbayError) => void): void {
    switch (msg.t) {
      case "log":
        return this.logs.push(msg);
      case "secrets":
        return this.opts.onSecrets(msg.secrets);
      case "ready":
        this.opts.onSecrets(msg.secrets);
        return settleStart();
      case "init-failed":
        this.opts.onSecrets(msg.secrets);
        return settleStart(fromWire(msg.error));
      case "grant-call":
        this.opts.onGrantCall(msg).then(
          (value) => client.post({ t: "grant-result", id: msg.id, ok: true, value }),
          (err: unknown) =>
            client.post({
              t: "grant-result",
              id: msg.id,
              ok: false,
              error:
                err instanceof PatchbayError
                  ? { code: err.code, message: err.message, hint: err.hint, data: err.data }
                  : { code: "PB_ERR_INTERNAL", message: String(err), hint: "", data: {} },
            }),
        );
        return;
      case "closed":
        return this.onClosed?.();
      case "resource-updated":
        return this.opts.onResourceUpdated?.(msg.uri);
      case "list-changed":
        return this.opts.onListChanged?.(msg.list);
    }
  }

  /** The worker of `generation` died or was killed: reject its calls at once, then restart or open the circuit. */
  private async crashed(
    generation: number,
    reason: string,
    code: "PB_ERR_PLUGIN_CRASHED" | "PB_ERR_PLUGIN_MISBEHAVING" = "PB_ERR_PLUGIN_CRASHED",
  ): Promise<void> {
    // Only a ready worker "crashes": one that dies while starting fails its start instead, and a
    // worker we are already replacing or stopping reports its exit a second time.
    if (generation !== this.generation || this.state !== "ready") return;
    const err = pbError(code, `${this.instance}: ${reason}.`, { instance: this.instance, reason });
    this.lastError = err;
    const delay = this.policy.recordCrash();
    if (delay === null) {
      const open = pbError(
        "PB_ERR_CIRCUIT_OPEN",
        `${this.instance} crashed ${this.policy.recentCrashes} times recently and will not be restarted (last: ${reason}).`,
        { instance: this.instance, reason },
      );
      this.lastError = open;
      this.setState("failed", open);
    } else {
      this.setState("restarting", err);
    }
    this.client?.rejectAll(err);
    // Not awaited: a thread that exited by itself may never report its exit to tinypool.
    void this.destroyRuntime();
    if (delay === null) return;
    this.ready = sleep(delay).then(() => {
      if (this.state !== "restarting") throw this.unavailableError();
      this.setState("starting");
      // A state listener may have stopped the instance just now.
      if ((this.state as WorkerState) !== "starting") throw this.unavailableError();
      return this.spawn();
    });
    this.ready.catch(() => undefined);
  }

  private async destroyRuntime(): Promise<void> {
    const runtime = this.runtime;
    this.runtime = null;
    await runtime?.destroy();
  }

  private unavailableError(): PatchbayError {
    if (this.state === "failed" && this.lastError?.code === "PB_ERR_CIRCUIT_OPEN") return this.lastError;
    if (this.state === "stopped" || this.state === "stopping")
      return pbError("PB_ERR_HOST_CLOSED", `${this.instance} is stopped.`, { instance: this.instance });
    const why = this.lastError ? ` (${this.lastError.message})` : "";
    return pbError("PB_ERR_INSTANCE_UNAVAILABLE", `${this.instance} is ${this.state}${why}.`, {
      instance: this.instance,
      state: this.state,
    });
  }

  private timeoutError(method: string, timeoutMs: number): PatchbayError {
    return pbError(
      "PB_ERR_CALL_TIMEOUT",
      `${this.instance}.${method}() did not finish within ${timeoutMs} ms (the instance was restarting).`,
      { instance: this.instance, method, timeout_ms: timeoutMs },
    );
  }

  private setState(state: WorkerState, reason?: PatchbayError): void {
    this.state = state;
    this.opts.onStateChange?.(state, reason);
  }
}

function withDeadline<T>(promise: Promise<T>, deadline: number, onTimeout: () => Error): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), Math.max(0, deadline - Date.now()));
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
