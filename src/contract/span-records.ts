/**
 * A plugin's own spans as they cross from its worker to the host: plain records (no
 * OpenTelemetry module loads in a worker), sent once per traced call just before its result,
 * and exported by the host as children of its call span. Both sides hold them to the same
 * bounds; the host reads each record afresh (readSpanRecords) because a worker may send
 * anything: a record that fails a check is dropped alone, one that does not hang from the call's
 * span (directly or through other records of the call) is dropped, and past the count the rest is.
 */
import { isSpanId } from "./trace-context.js";

/** The most spans one call may add; the worker stops recording past it, the host drops the rest. */
export const MAX_SPANS_PER_CALL = 32;
export const MAX_SPAN_NAME_CHARS = 128;
export const MAX_SPAN_ATTRIBUTES = 16;
export const MAX_SPAN_ATTRIBUTE_VALUE_CHARS = 256;
/** An attribute key: OpenTelemetry's dotted names, short. */
const ATTRIBUTE_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
/** A span longer than a day is a clock or a lie. */
const MAX_SPAN_MS = 86_400_000;
/**
 * How far a record may lie outside its call (from when the host sent it to now): a worker's
 * clock is performance.timeOrigin + now(), which drifts from the wall clock the host reads.
 */
const CLOCK_SLACK_MS = 300_000;

export type SpanAttributeValue = string | number | boolean;

export interface SpanRecord {
  /** 16 lowercase hex digits, chosen by the worker: the ID the host exports the span under. */
  id: string;
  /** The call's span ID, or another record's of the same call. */
  parent: string;
  name: string;
  kind: "internal" | "client";
  /** Epoch milliseconds (fractional). */
  start: number;
  end: number;
  /** Set when the span failed: a short description. */
  error?: string;
  attributes?: Record<string, SpanAttributeValue>;
}

/**
 * What a host call carries when it is traced (host.call's `trace` option): the context the
 * worker's call runs under and where its plugin's spans go.
 */
export interface CallTrace {
  /** W3C traceparent of the span the call runs under; the plugin sees it and parents its spans to it. */
  readonly traceparent: string;
  /** The plugin's spans of this call, each checked (readSpanRecords); at most once per call. */
  spans?(records: SpanRecord[]): void;
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

function readAttributes(raw: unknown): Record<string, SpanAttributeValue> | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const out: Record<string, SpanAttributeValue> = {};
  let n = 0;
  for (const key of Object.keys(raw)) {
    if (n >= MAX_SPAN_ATTRIBUTES) break;
    if (!ATTRIBUTE_KEY.test(key)) continue;
    const v = (raw as Record<string, unknown>)[key];
    if (typeof v === "string") out[key] = clip(v, MAX_SPAN_ATTRIBUTE_VALUE_CHARS);
    else if (typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v))) out[key] = v;
    else continue;
    n++;
  }
  return n > 0 ? out : undefined;
}

/** One record checked and copied, or null; its times within `from` and `to` (epoch ms). */
function readRecord(raw: unknown, from: number, to: number): SpanRecord | null {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  if (!isSpanId(r.id) || !isSpanId(r.parent) || r.id === r.parent) return null;
  if (typeof r.name !== "string" || r.name.length === 0) return null;
  if (r.kind !== "internal" && r.kind !== "client") return null;
  const { start, end } = r;
  if (typeof start !== "number" || typeof end !== "number" || !Number.isFinite(start) || !Number.isFinite(end))
    return null;
  if (start < from || end > to || end < start || end - start > MAX_SPAN_MS) return null;
  const rec: SpanRecord = {
    id: r.id,
    parent: r.parent,
    name: clip(r.name, MAX_SPAN_NAME_CHARS),
    kind: r.kind,
    start,
    end,
  };
  if (typeof r.error === "string") rec.error = clip(r.error, MAX_SPAN_ATTRIBUTE_VALUE_CHARS);
  else if (r.error !== undefined) return null;
  const attributes = readAttributes(r.attributes);
  if (attributes) rec.attributes = attributes;
  return rec;
}

/**
 * The records of `raw` that are well formed and hang from `callSpanId`, at most `room`, each a
 * fresh copy; IDs unique (a second record with an ID already taken, or the call's own, is
 * dropped); times between the call's start (`sentAt`, epoch ms) and now, give or take the slack.
 */
export function readSpanRecords(raw: unknown, callSpanId: string, room: number, sentAt: number): SpanRecord[] {
  if (!Array.isArray(raw) || room <= 0) return [];
  const from = sentAt - CLOCK_SLACK_MS;
  const to = Date.now() + CLOCK_SLACK_MS;
  const byId = new Map<string, SpanRecord>();
  const n = Math.min(raw.length, MAX_SPANS_PER_CALL);
  for (let i = 0; i < n; i++) {
    const rec = readRecord(raw[i], from, to);
    if (rec && rec.id !== callSpanId && !byId.has(rec.id)) byId.set(rec.id, rec);
  }
  // Rooted: a chain of parents that reaches the call's span (a cycle never does).
  const rooted = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const rec of byId.values()) {
      if (rooted.has(rec.id)) continue;
      if (rec.parent === callSpanId || rooted.has(rec.parent)) {
        rooted.add(rec.id);
        grew = true;
      }
    }
  }
  const out: SpanRecord[] = [];
  for (const rec of byId.values()) {
    if (out.length >= room) break;
    if (rooted.has(rec.id)) out.push(rec);
  }
  return out;
}
