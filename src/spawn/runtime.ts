/**
 * What InstanceWorker needs of the thing that runs a plugin: a channel for the RPC client, why
 * it died, and a way to stop it. Two runtimes implement it: thread-runtime.ts (the default,
 * tinypool + a MessagePort) and process-runtime.ts ("isolation": "process", a forked child
 * under Node's permission model).
 */
import type { RpcTransport } from "../rpc/client.js";

export type Isolation = "thread" | "process" | "sandbox";

export interface WorkerRuntime {
  readonly transport: RpcTransport;
  /**
   * Why the worker died, once the runtime has heard everything it will hear about the death (a
   * thread's exit after its error; a child's exit and the end of its stderr), or after a bounded
   * wait: out of memory, an uncaught error; null when it only knows that the worker exited.
   * Asked after transport.onClose.
   */
  exitReason(): Promise<string | null>;
  /** Stops the worker (a stuck one too); resolves when it is gone or after a bounded wait. */
  destroy(): Promise<void>;
}

/** The longest exitReason() waits for a dead worker's last words. */
export const REASON_WAIT_MS = 1_000;

/** How long stopping a worker may take before we stop waiting for it. */
export const STOP_TIMEOUT_MS = 3_000;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
