/**
 * A plugin's span records (contract/span-records.ts, already checked and bounded by the RPC
 * client) exported as real spans, children of the host's call span. A record names the span ID
 * its plugin chose and may have passed upstream as a traceparent, so the exported span must
 * keep that ID: ForcedIds hands the SDK's tracer that ID for the one span started right then
 * (startSpan is synchronous), and a random one otherwise. Names, error texts and string
 * attributes pass the host's scrubber; a key the scrubber would change is dropped.
 */
import type * as Api from "@opentelemetry/api";
import type { IdGenerator } from "@opentelemetry/sdk-trace";
import type { SpanAttributeValue, SpanRecord } from "../contract/span-records.js";
import type { Scrubber } from "../secrets.js";

export class ForcedIds implements IdGenerator {
  private next: string | null = null;

  constructor(private readonly random: IdGenerator) {}

  /** Runs `start` with `spanId` as the ID of the span it starts. */
  with<T>(spanId: string, start: () => T): T {
    this.next = spanId;
    try {
      return start();
    } finally {
      this.next = null;
    }
  }

  generateTraceId(): string {
    return this.random.generateTraceId();
  }

  generateSpanId(): string {
    const forced = this.next;
    if (forced === null) return this.random.generateSpanId();
    this.next = null;
    return forced;
  }
}

/** Exports `records` under the host's call span `parent`. */
export function exportWorkerSpans(
  api: typeof Api,
  tracer: Api.Tracer,
  ids: ForcedIds,
  scrubber: Scrubber,
  parent: Api.SpanContext,
  records: readonly SpanRecord[],
): void {
  for (const rec of records) {
    const ctx = api.trace.setSpanContext(api.ROOT_CONTEXT, {
      traceId: parent.traceId,
      spanId: rec.parent,
      traceFlags: parent.traceFlags,
    });
    const span = ids.with(rec.id, () =>
      tracer.startSpan(
        scrubber.scrub(rec.name),
        {
          kind: rec.kind === "client" ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL,
          startTime: rec.start,
          attributes: attributesOf(rec, scrubber),
        },
        ctx,
      ),
    );
    if (rec.error !== undefined) {
      span.setAttribute("error.type", scrubber.scrub(rec.error));
      span.setStatus({ code: api.SpanStatusCode.ERROR });
    }
    span.end(rec.end);
  }
}

function attributesOf(rec: SpanRecord, scrubber: Scrubber): Record<string, SpanAttributeValue> {
  const out: Record<string, SpanAttributeValue> = { "patchbay.plugin_span": true };
  for (const [key, value] of Object.entries(rec.attributes ?? {})) {
    if (scrubber.scrub(key) !== key) continue;
    out[key] = typeof value === "string" ? scrubber.scrub(value) : value;
  }
  return out;
}
