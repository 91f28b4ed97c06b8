/**
 * The worker → host half of batching (issue 12): the first result of a turn leaves at once, the
 * results after it in the same turn together at the next microtask checkpoint (or every
 * EAGER_BATCH): a lone one as it is, several as one `{ t: "batch", msgs }` (at most MAX_BATCH). Only results are batched (the host refuses
 * anything else inside a batch); every other message (log, progress, grant-call, lifecycle) is
 * posted at once, after the results queued before it, so the host sees the same order as
 * without batching and a secret still arrives before any line that could carry it.
 *
 * A result structured clone cannot carry (a function, a socket) makes the whole batch throw:
 * the batch is then posted entry by entry, and only that entry becomes its call's
 * PB_ERR_CONTRACT_VIOLATION, as when each result was posted on its own.
 */
import { pbError, toWire } from "../errors.js";
import { EAGER_BATCH, MAX_BATCH, type ResultBatchMessage, type ResultMessage, type WorkerToHost } from "../contract/rpc.js";

export type Post = (msg: WorkerToHost | ResultBatchMessage) => void;

export class ResultOutbox {
  private queue: ResultMessage[] = [];
  /** A result left in this turn and a microtask will end the turn: later results of the turn queue. */
  private turnOpen = false;
  private readonly endTurn = (): void => {
    this.turnOpen = false;
    this.flush();
  };
  /** The channel's send for everything the worker posts (a closure: context.ts and the console capture hold it unbound). */
  readonly send = (msg: WorkerToHost): void => {
    if (msg.t === "result") {
      if (!this.turnOpen) {
        // The first result of a turn leaves at once, as without batching (the host wakes while
        // this thread finishes its turn); the rest of the turn queues until the checkpoint.
        this.turnOpen = true;
        queueMicrotask(this.endTurn);
        return this.one(msg);
      }
      this.queue.push(msg);
      // A full batch leaves at once: the host settles it while this thread still answers the rest.
      if (this.queue.length >= EAGER_BATCH) this.flush();
      return;
    }
    this.flush();
    this.post(msg);
  };

  /** `unsendable` is the result to send instead of one that cannot be cloned. */
  constructor(private readonly post: Post, private readonly unsendable: (msg: ResultMessage) => ResultMessage) {}

  /** Posts the queued results now (before any other message, and before the channel ends). */
  flush(): void {
    const msgs = this.queue;
    if (msgs.length === 0) return;
    this.queue = [];
    if (msgs.length === 1) return this.one(msgs[0]);
    for (let i = 0; i < msgs.length; i += MAX_BATCH) {
      const chunk = msgs.length <= MAX_BATCH ? msgs : msgs.slice(i, i + MAX_BATCH);
      try {
        this.post({ t: "batch", msgs: chunk });
      } catch {
        for (const m of chunk) this.one(m);
      }
    }
  }

  private one(msg: ResultMessage): void {
    try {
      this.post(msg);
    } catch {
      this.post(this.unsendable(msg));
    }
  }
}

/** What an instance sends instead of a result structured clone cannot carry. */
export function unsendableResult(instance: string): (msg: ResultMessage) => ResultMessage {
  return (msg) => ({ t: "result", id: msg.id, ok: false, error: toWire(pbError("PB_ERR_CONTRACT_VIOLATION", `${instance}: the result could not be sent across the boundary (it must be plain data).`, { instance })) });
}
