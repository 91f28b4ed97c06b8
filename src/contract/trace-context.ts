/**
 * The W3C trace context as it crosses Patchbay's boundaries (a client's HTTP header or `_meta`,
 * the host's call to a worker, a plugin's own span records): plain strings held to strict
 * patterns, so neither side parses what the other sends any further. A leaf both the host and
 * the worker import; no OpenTelemetry module is needed to read or check a context.
 */

/** Version 00 only, lowercase hex, the IDs not all zero (checked apart): the one form the host sends and reads. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
/** A span ID as a worker's span record names it. */
const SPAN_ID = /^[0-9a-f]{16}$/;
/** tracestate: printable ASCII, bounded (the W3C allows 32 members of 256 characters; 512 in all is plenty). */
const TRACESTATE = /^[\x20-\x7e]{0,512}$/;

/** A valid traceparent (version 00, IDs not all zero), else null. */
export function readTraceparent(v: unknown): { traceId: string; spanId: string; flags: string } | null {
  if (typeof v !== "string" || v.length !== 55) return null;
  const m = TRACEPARENT.exec(v);
  if (!m || m[1] === ZERO_TRACE || m[2] === ZERO_SPAN) return null;
  return { traceId: m[1]!, spanId: m[2]!, flags: m[3]! };
}

export function isTraceparent(v: unknown): v is string {
  return readTraceparent(v) !== null;
}

export function isTracestate(v: unknown): v is string {
  return typeof v === "string" && TRACESTATE.test(v);
}

export function isSpanId(v: unknown): v is string {
  return typeof v === "string" && SPAN_ID.test(v) && v !== ZERO_SPAN;
}

/** The traceparent of span `spanId` in the trace (and with the flags) of `parent`. */
export function childTraceparent(parent: string, spanId: string): string {
  return `${parent.slice(0, 36)}${spanId}${parent.slice(52)}`;
}
