/**
 * The host → worker half of batching, on the shared turn policy
 * (contract/turn-batch.ts): sixty-four calls issued together cost five postMessages and
 * 'message' events in the worker instead of sixty-four; a lone call costs one microtask more.
 *
 * Every other message (cancel, close, grant-result) is posted at once, after the calls queued
 * before it: nothing waits behind the queue, and the order on the channel is the order of the
 * posts, as without batching.
 *
 * A queued call's arguments are serialized when its batch leaves, not inside call(). The guard
 * checked them inside call(); a caller that mutates them later in the same turn sends what it
 * mutated. The host's callers are code in the host's own process (they share its heap), so this is not a
 * boundary; the boundary is worker → host, and every message from the worker is still checked.
 */
import type { CallMessage, HostToWorker } from "../contract/rpc.js";
import { TurnBatch } from "../contract/turn-batch.js";

export class CallOutbox {
  private readonly batch: TurnBatch<CallMessage>;

  /**
   * `post` throws synchronously when a message cannot be serialized; `unsendable` settles the
   * one call whose arguments could not be sent (its neighbours in a batch are sent one by one).
   */
  constructor(
    private readonly post: (msg: HostToWorker) => void,
    unsendable: (msg: CallMessage, err: unknown) => void,
  ) {
    this.batch = new TurnBatch<CallMessage>(
      (msgs) => post({ t: "batch", msgs }),
      (msg) => {
        try {
          post(msg);
        } catch (err) {
          unsendable(msg, err);
        }
      },
    );
  }

  call(msg: CallMessage): void {
    this.batch.add(msg);
  }

  /** Posts a non-call message now, after the calls queued before it. Throws as `post` does. */
  send(msg: Exclude<HostToWorker, CallMessage>): void {
    this.batch.flush();
    this.post(msg);
  }

  /** Takes call `id` out of the queue if it has not left yet (a cancel then has nothing to tell the worker). */
  drop(id: number): boolean {
    return this.batch.drop(id);
  }

  /** Forgets every queued call (the channel is gone; their callers were rejected). */
  clear(): void {
    this.batch.clear();
  }
}
