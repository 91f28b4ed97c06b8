/**
 * What InstanceWorker needs of the thing that runs a plugin: a channel for the RPC client, why
 * it died, and a way to stop it. The runtimes: thread-runtime.ts (the default, tinypool + a
 * MessagePort), group-runtime.ts (a thread shared by a group), process-runtime.ts ("isolation":
 * "process", a forked child under Node's permission model), sandbox-runtime.ts (that child under
 * bubblewrap) and host-runtime.ts ("isolation": "host", a bundled plugin on the host's thread).
 */
import type { RpcTransport } from "../rpc/transport.js";

export type Isolation = "thread" | "process" | "sandbox" | "host";

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

/**
 * A worker thread's young generation, in MiB. V8 sizes it as for a main thread (up to 32 MiB of
 * semi-spaces, filled under load and never returned), while an instance's thread mostly relays
 * short-lived messages. 3 MiB holds its semi-spaces at V8's starting size, as `serve` holds every
 * thread's with --semi-space-growth-factor=1 (bin/patchbay.mjs), so an embedder's instances cost
 * what serve's do: ~0.9 MiB less per idle instance than with 8, the calls as fast (npm run bench,
 * "calls"). A plugin that keeps much alive still has maxMemoryMb of old generation for it.
 */
export const YOUNG_GENERATION_MB = 3;

/** How long stopping a worker may take before we stop waiting for it. */
export const STOP_TIMEOUT_MS = 3_000;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
