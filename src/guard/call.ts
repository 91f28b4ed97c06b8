/**
 * The one door every call to an instance goes through, in and out once: on the way in the
 * arguments are checked and prepared (guard.ts: methods, schema or fast check, filters, identity
 * merge, tool allowlist); on the way out the result is checked (contract rules, outputSchema)
 * and filtered. The host API, the health passes, grants and broadcast all call `invoke`; nothing
 * in here calls back into the host.
 */
import { pbError, PatchbayError, toWire } from "../errors.js";
import type { HostMeta } from "../contract/target.js";
import type { ProgressUpdate } from "../rpc/client.js";
import type { CallTrace } from "../rpc/call-spans.js";
import type { InstanceEntry } from "../registry/registry.js";
import type { ReceiptLog } from "../registry/receipts.js";
import { watchSubstrate } from "../registry/substrate.js";
import type { Scrubber } from "../secrets.js";
import { checkCall, checkResult, contractTimeout } from "./guard.js";
import { knowsTools, toolsUnknown } from "./mcp-checks.js";

/** The longest the guard spends listing an instance's tools before its first call. */
const LEARN_TOOLS_MS = 5_000;

/** What a caller may add to a call: its deadline, its progress listener, its cancellation. */
export interface GuardedCallOptions {
  timeoutMs?: number;
  onProgress?: (update: ProgressUpdate) => void;
  signal?: AbortSignal;
  /** The call's trace context and the sink of its plugin's spans (traced calls only). */
  trace?: CallTrace;
}

export type { HostMeta };

export class CallGuard {
  constructor(
    private readonly scrubber: Scrubber,
    private readonly receiptLog: ReceiptLog,
  ) {}

  /**
   * One call through the guard. Never throws: every failure is a rejection. Not an async
   * function: the common call is one chain of `then`s on the worker's promise (no async frame
   * and no await ticks of its own), which is every call's path.
   */
  invoke(
    entry: InstanceEntry,
    method: string,
    args: unknown[],
    opts: GuardedCallOptions = {},
    hostMeta?: HostMeta,
  ): Promise<unknown> {
    try {
      if (!entry.worker || !entry.target || !entry.planned) {
        throw pbError(
          "PB_ERR_INSTANCE_UNAVAILABLE",
          `${entry.id} is ${entry.state}${entry.error ? ` (${entry.error.message})` : ""}.`,
          { instance: entry.id, state: entry.state },
        );
      }
      const target = entry.target;
      const sent = checkCall(target, method, args, hostMeta);
      const timeoutMs = opts.timeoutMs ?? contractTimeout(target, method, sent) ?? entry.planned.timeoutMs;
      // Listed alongside the call, not before it: the call is sent at once, in the caller's order;
      // only its result waits.
      const learning =
        target.kind === "mcp" && method === "call" && !knowsTools(target) ? this.learnTools(entry, timeoutMs) : null;
      if (target.kind === "agent" && method === "deliver") return this.deliver(entry, sent, timeoutMs, opts.signal);
      const onProgress = opts.onProgress ? this.scrubbedProgress(opts.onProgress) : undefined;
      return watchSubstrate(
        entry,
        entry.worker.call(method, sent, timeoutMs, onProgress, opts.signal, opts.trace),
      ).then((result) =>
        learning
          ? learning.then(() => checkResult(target, method, sent, result))
          : checkResult(target, method, sent, result),
      );
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** An error as it may leave the host: its message and data with every secret scrubbed. */
  scrubError(err: unknown): PatchbayError {
    const wire = toWire(err);
    return new PatchbayError(
      wire.code,
      this.scrubber.scrub(wire.message),
      this.scrubber.scrubValue(wire.data),
      wire.hint,
    );
  }

  /** An agent delivery: every delivery that crossed is recorded, acknowledged or not. */
  private async deliver(
    entry: InstanceEntry,
    sent: unknown[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<unknown> {
    try {
      const receipt = checkResult(
        entry.target!,
        "deliver",
        sent,
        await watchSubstrate(entry, entry.worker!.call("deliver", sent, timeoutMs, undefined, signal)),
      );
      this.receiptLog.recordDelivery(entry.id, sent, { result: receipt });
      return receipt;
    } catch (err) {
      this.receiptLog.recordDelivery(entry.id, sent, { error: err });
      throw err;
    }
  }

  /**
   * The guard checks structuredContent against each tool's outputSchema, which it learns from
   * list_tools: with the first call of an instance whose tools it has not seen, it lists them
   * once, bounded by LEARN_TOOLS_MS. A failed listing does not fail the call; it is tried again
   * after a while (mcp-checks.ts), not before every call.
   */
  private async learnTools(entry: InstanceEntry, timeoutMs: number): Promise<void> {
    try {
      await this.invoke(entry, "list_tools", [], { timeoutMs: Math.min(timeoutMs, LEARN_TOOLS_MS) });
    } catch {
      // The call itself reports whatever is wrong with the instance.
      toolsUnknown(entry.target!);
    }
  }

  private scrubbedProgress(fn: (update: ProgressUpdate) => void): (update: ProgressUpdate) => void {
    return (u) => fn(u.message === undefined ? u : { ...u, message: this.scrubber.scrub(u.message) });
  }
}
