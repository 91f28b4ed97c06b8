/**
 * A traced call's span records as they reach the host: read afresh and bounded against the
 * call's own span (contract/span-records.ts) before the tracer sees them. Apart from RpcClient,
 * which only finds the call they belong to.
 */
import { MAX_SPANS_PER_CALL, readSpanRecords, type CallTrace } from "../contract/span-records.js";
import { isTraceparent, readTraceparent } from "../contract/trace-context.js";

export type { CallTrace } from "../contract/span-records.js";

/** Hands `trace.spans` the records of `raw` that pass (the call was sent at `sentAt`); nothing when none does. */
export function deliverSpans(trace: CallTrace, raw: unknown, sentAt: number): void {
  const parent = trace.spans ? readTraceparent(trace.traceparent) : null;
  if (!parent) return;
  const records = readSpanRecords(raw, parent.spanId, MAX_SPANS_PER_CALL, sentAt);
  if (records.length > 0) trace.spans!(records);
}

/** Whether a call goes out traced: a trace whose traceparent is the one form the worker accepts. */
export function traced(trace: CallTrace | undefined): trace is CallTrace {
  return trace !== undefined && isTraceparent(trace.traceparent);
}
