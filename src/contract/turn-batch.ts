/**
 * Batching per turn, the policy both directions of the channel share: the first
 * message of a synchronous turn leaves at once (a lone call or result pays no latency: the other
 * side wakes while this one finishes its turn); the messages after it in the same turn leave
 * together at the next microtask checkpoint, or as soon as EAGER_BATCH are queued (the other
 * side starts on them while this one queues the rest): a lone one as it is, several as one
 * `{ t: "batch", msgs }` of at most MAX_BATCH. A batch whose post throws (something in it
 * structured clone cannot carry) is posted entry by entry, so only that entry fails.
 *
 * A leaf: the host's call outbox (rpc/outbox.ts) and the worker's result outbox
 * (worker/outbox.ts) each wrap one, with their own rule for the entry that cannot be sent.
 */
import { EAGER_BATCH, MAX_BATCH } from "./rpc.js";

export class TurnBatch<M extends { id: number }> {
  private queue: M[] = [];
  /** A message left in this turn and a microtask will end the turn: later messages of the turn queue. */
  private turnOpen = false;
  private readonly endTurn = (): void => {
    this.turnOpen = false;
    this.flush();
  };

  /**
   * `postBatch` throws synchronously when the batch cannot be serialized; `postOne` sends a
   * single message and deals with its own failure (it never throws).
   */
  constructor(
    private readonly postBatch: (msgs: M[]) => void,
    private readonly postOne: (msg: M) => void,
  ) {}

  add(msg: M): void {
    if (!this.turnOpen) {
      this.turnOpen = true;
      queueMicrotask(this.endTurn);
      return this.postOne(msg);
    }
    this.queue.push(msg);
    if (this.queue.length >= EAGER_BATCH) this.flush();
  }

  /** Posts what is queued now (before any other message, and before the channel ends). */
  flush(): void {
    const msgs = this.queue;
    if (msgs.length === 0) return;
    this.queue = [];
    if (msgs.length === 1) return this.postOne(msgs[0]);
    for (let i = 0; i < msgs.length; i += MAX_BATCH) {
      const chunk = msgs.length <= MAX_BATCH ? msgs : msgs.slice(i, i + MAX_BATCH);
      try {
        this.postBatch(chunk);
      } catch {
        for (const m of chunk) this.postOne(m);
      }
    }
  }

  /** Takes message `id` out of the queue if it has not left yet. */
  drop(id: number): boolean {
    const i = this.queue.findIndex((m) => m.id === id);
    if (i < 0) return false;
    this.queue.splice(i, 1);
    return true;
  }

  /** Forgets every queued message (the channel is gone). */
  clear(): void {
    this.queue = [];
  }
}
