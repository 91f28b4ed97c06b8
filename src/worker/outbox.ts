/**
 * The worker → host half of batching, on the shared turn policy
 * (contract/turn-batch.ts). Only results are batched (the host refuses
 * anything else inside a batch); every other message (log, progress, grant-call, lifecycle) is
 * posted at once, after the results queued before it, so the host sees the same order as
 * without batching and a secret still arrives before any line that could carry it.
 *
 * A result structured clone cannot carry (a function, a socket) makes the whole batch throw:
 * the batch is then posted entry by entry, and only that entry becomes its call's
 * PB_ERR_CONTRACT_VIOLATION, as when each result was posted on its own.
 */
import { pbError, toWire } from "../errors.js";
import type { ResultBatchMessage, ResultMessage, WorkerToHost } from "../contract/rpc.js";
import { TurnBatch } from "../contract/turn-batch.js";

export type Post = (msg: WorkerToHost | ResultBatchMessage) => void;

export class ResultOutbox {
  private readonly batch: TurnBatch<ResultMessage>;
  /**
   * The channel's send for everything the worker posts (a closure: context.ts and the console
   * capture hold it unbound).
   */
  readonly send = (msg: WorkerToHost): void => {
    if (msg.t === "result") return this.batch.add(msg);
    this.batch.flush();
    this.post(msg);
  };

  /** `unsendable` is the result to send instead of one that cannot be cloned. */
  constructor(
    private readonly post: Post,
    unsendable: (msg: ResultMessage) => ResultMessage,
  ) {
    this.batch = new TurnBatch<ResultMessage>(
      (msgs) => post({ t: "batch", msgs }),
      (msg) => {
        try {
          post(msg);
        } catch {
          post(unsendable(msg));
        }
      },
    );
  }

  /** Posts the queued results now (before any other message, and before the channel ends). */
  flush(): void {
    this.batch.flush();
  }
}

/** What an instance sends instead of a result structured clone cannot carry. */
export function unsendableResult(instance: string): (msg: ResultMessage) => ResultMessage {
  return (msg) => ({
    t: "result",
    id: msg.id,
    ok: false,
    error: toWire(
      pbError(
        "PB_ERR_CONTRACT_VIOLATION",
        `${instance}: the result could not be sent across the boundary (it must be plain data).`,
        { instance },
      ),
    ),
  });
}
