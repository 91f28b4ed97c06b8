/**
 * What the RPC client needs of a worker's channel, and that channel over a thread's MessagePort (a
 * child process's framed socket is spawn/process-runtime.ts). Apart from the client so a runtime
 * names its channel without the call table.
 */
import type { MessagePort } from "node:worker_threads";
import type { HostToWorker } from "../contract/rpc.js";

/** What RpcClient needs of a channel. */
export interface RpcTransport {
  /** Must throw synchronously when `msg` cannot be serialized (structured clone rules). */
  post(msg: HostToWorker): void;
  /** Delivers raw, unchecked messages: RpcClient checks each one before anything reads it. */
  onMessage(fn: (msg: unknown) => void): void;
  /** The channel can carry SharedArrayBuffers (a thread's port): results are copied out of them. */
  readonly sharedMemory?: boolean;
  /** The channel is gone: the worker exited, was killed, or closed its end. */
  onClose(fn: () => void): void;
}

export function portTransport(port: MessagePort): RpcTransport {
  return {
    post: (msg) => port.postMessage(msg),
    onMessage: (fn) => port.on("message", fn),
    sharedMemory: true,
    onClose: (fn) => port.on("close", fn),
  };
}
