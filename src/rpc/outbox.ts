/**
 * The host → worker half of batching (issue 12): the first call of a synchronous turn leaves at
 * once; the calls after it in the same turn leave together at the next microtask checkpoint, or
 * as soon as EAGER_BATCH of them are queued: a lone one as it is, several as one
 * `{ t: "batch", msgs }` (at most MAX_BATCH each). Sixty-four calls issued together then cost
 * five postMessages and 'message' events in the worker instead of sixty-four; a lone call costs
 * one microtask more.
 *
 * Every other message (cancel, close, grant-result) is posted at once, after the calls queued
 * before it: nothing waits behind the queue, and the order on the channel is the order of the
 * posts, as without batching.
 *
 * A queued call's arguments are serialized when its batch leaves, not inside call(). The guard
 * checked them inside call(); a caller that mutates them later in the same turn sends what it
 * mutated. The
 * host's callers are code in the host's own process (they share its heap), so this is not a
 * boundary; the boundary is worker → host, and every message from the worker is still checked.
 */
import { EAGER_BATCH, MAX_BATCH, type CallMessage, type HostToWorker } from "../contract/rpc.js";

export class CallOutbox {
  private queue: CallMessage[] = [];
  /** A call left in this turn and a microtask will end the turn: later calls of the turn queue. */
  private turnOpen = false;
  private readonly endTurn = (): void => {
    this.turnOpen = false;
    this.drain();
  };

  /**
   * `post` throws synchronously when a message cannot be serialized; `unsendable` settles the
   * one call whose arguments could not be sent (its neighbours in a batch are sent one by one).
   */
  constructor(
    private readonly post: (msg: HostToWorker) => void,
    private readonly unsendable: (msg: CallMessage, err: unknown) => void,
  ) {}

  call(msg: CallMessage): void {
    if (!this.turnOpen) {
      // The first call of a turn leaves at once, as without batching: the worker wakes while this
      // thread finishes its turn, and a lone call costs one microtask more, no latency. The rest
      // of the turn queues behind it until the checkpoint (or a full batch).
      this.turnOpen = true;
      queueMicrotask(this.endTurn);
      return this.one(msg);
    }
    this.queue.push(msg);
    // A full batch leaves at once: the worker starts on it while this thread still queues the rest.
    if (this.queue.length >= EAGER_BATCH) this.drain();
  }

  /** Posts a non-call message now, after the calls queued before it. Throws as `post` does. */
  send(msg: Exclude<HostToWorker, CallMessage>): void {
    this.drain();
    this.post(msg);
  }

  /** Takes call `id` out of the queue if it has not left yet (a cancel then has nothing to tell the worker). */
  drop(id: number): boolean {
    const i = this.queue.findIndex((m) => m.id === id);
    if (i < 0) return false;
    this.queue.splice(i, 1);
    return true;
  }

  /** Forgets every queued call (the channel is gone; their callers were rejected). */
  clear(): void {
    this.queue = [];
  }

  /** Posts the queued calls: one as it is, several as batches of at most MAX_BATCH. */
  private drain(): void {
    const msgs = this.queue;
    if (msgs.length === 0) return;
    this.queue = [];
    if (msgs.length === 1) return this.one(msgs[0]);
    for (let i = 0; i < msgs.length; i += MAX_BATCH) {
      const chunk = msgs.length <= MAX_BATCH ? msgs : msgs.slice(i, i + MAX_BATCH);
      try {
        this.post({ t: "batch", msgs: chunk });
      } catch {
        // Some call's arguments cannot be cloned: send them one by one, so only that call fails.
        for (const m of chunk) this.one(m);
      }
    }
  }

  private one(msg: CallMessage): void {
    try {
      this.post(msg);
    } catch (err) {
      this.unsendable(msg, err);
    }
  }
}
