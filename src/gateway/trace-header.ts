/**
 * A `serve --http` request's W3C `traceparent` (and `tracestate`) headers, taken as the parent
 * of the tools/call spans in its body. The context is written into each call's
 * `params._meta`, where tracing.ts reads it on every transport, so the SDK's path and the fast
 * lane see the same thing without either knowing about headers.
 *
 * The header wins over a `_meta.traceparent` in the body: an instrumented HTTP client injects
 * the header for the HTTP request's own span, a child of the span that set `_meta`, so the
 * header names the nearer parent. Its `tracestate` travels with it (a `_meta.tracestate` of the
 * body's other parent is dropped). An invalid header is ignored, and `_meta` stays as sent.
 */
import type { IncomingHttpHeaders } from "node:http";
import { isTraceparent, isTracestate } from "../contract/trace-context.js";

/** Copies a valid traceparent header into every tools/call of `body` (an object, or a batch's array). */
export function adoptTraceHeader(headers: IncomingHttpHeaders, body: unknown): void {
  const traceparent = headers.traceparent;
  if (!isTraceparent(traceparent)) return;
  const tracestate = headers.tracestate;
  const state = isTracestate(tracestate) && tracestate !== "" ? tracestate : undefined;
  for (const m of Array.isArray(body) ? body : [body]) {
    const msg = m as { method?: unknown; params?: unknown } | null;
    if (msg === null || typeof msg !== "object" || msg.method !== "tools/call") continue;
    const params = msg.params;
    if (params === null || typeof params !== "object" || Array.isArray(params)) continue;
    const p = params as { _meta?: unknown };
    // A _meta that is not an object stays for the SDK's schema check to refuse.
    if (p._meta === undefined) p._meta = {};
    if (p._meta === null || typeof p._meta !== "object" || Array.isArray(p._meta)) continue;
    const meta = p._meta as Record<string, unknown>;
    meta.traceparent = traceparent;
    if (state === undefined) delete meta.tracestate;
    else meta.tracestate = state;
  }
}
