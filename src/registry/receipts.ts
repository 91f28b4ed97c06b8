/**
 * Delivery receipts, recorded by the host for every deliver() that crossed the boundary (a call,
 * a broadcast branch or a plugin's granted call alike), next to the host's own sent_at. Seed 000:
 * `delivered_at - sent_at` is the substrate's queue lag, and both clocks are needed to see it; a
 * failed delivery is recorded too, so "sent but never acknowledged" is visible, not silent.
 * Bounded: the oldest records go first.
 */
import { toWire } from "../errors.js";

export interface DeliveryRecord {
  /** "agentConnectors/primary" */
  instance: string;
  agent_id: string;
  kind: string;
  dispatch_id: string;
  /** The host's emit clock (unix ms), as sent in meta.sent_at. */
  sent_at: number;
  event_type: string | null;
  correlation_id: string | null;
  ok: boolean;
  /** The plugin's acknowledgement time; null when the delivery failed. */
  delivered_at: number | null;
  delivery_id: string | null;
  delivery_skipped: boolean;
  /** delivered_at - sent_at. */
  lag_ms: number | null;
  error: { code: string; message: string } | null;
}

export interface ReceiptFilter {
  instance?: string;
  agent_id?: string;
  dispatch_id?: string;
}

type Rec = Record<string, unknown>;

export class ReceiptLog {
  private readonly records: DeliveryRecord[] = [];

  constructor(private readonly capacity = 1_000) {}

  /** `sent` are the arguments that crossed (host meta filled); exactly one of result and error is given. */
  recordDelivery(instance: string, sent: unknown[], outcome: { result: unknown } | { error: unknown }): DeliveryRecord {
    const payload = sent[1] as Rec;
    const meta = payload.meta as Rec;
    const receipt = "result" in outcome ? (outcome.result as Rec) : null;
    const deliveredAt = receipt ? (receipt.delivered_at as number) : null;
    const record: DeliveryRecord = {
      instance,
      agent_id: sent[0] as string,
      kind: payload.kind as string,
      dispatch_id: meta.dispatch_id as string,
      sent_at: meta.sent_at as number,
      event_type: (meta.event_type as string | undefined) ?? null,
      correlation_id: (meta.correlation_id as string | undefined) ?? null,
      ok: receipt !== null,
      delivered_at: deliveredAt,
      delivery_id: (receipt?.delivery_id as string | undefined) ?? null,
      delivery_skipped: receipt?.delivery_skipped === true,
      lag_ms: deliveredAt === null ? null : deliveredAt - (meta.sent_at as number),
      error: "error" in outcome ? pick(toWire(outcome.error)) : null,
    };
    this.records.push(record);
    if (this.records.length > this.capacity) this.records.splice(0, this.records.length - this.capacity);
    return record;
  }

  /** Oldest first; copies, so a caller cannot edit the log. */
  list(filter: ReceiptFilter = {}): DeliveryRecord[] {
    return this.records
      .filter(
        (r) =>
          (filter.instance === undefined || r.instance === filter.instance) &&
          (filter.agent_id === undefined || r.agent_id === filter.agent_id) &&
          (filter.dispatch_id === undefined || r.dispatch_id === filter.dispatch_id),
      )
      .map((r) => ({ ...r, error: r.error && { ...r.error } }));
  }
}

function pick(wire: { code: string; message: string }): { code: string; message: string } {
  return { code: wire.code, message: wire.message };
}
