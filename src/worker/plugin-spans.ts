/**
 * A plugin's own spans (`ctx.trace.span`), recorded in its worker as plain records and sent to
 * the host just before the call's result (the host exports them with the real SDK, as children
 * of its call span). No OpenTelemetry module loads here. A call that came untraced, or code
 * outside a call, gets a span that records nothing: `fn` runs with a shared no-op handle, which
 * is the whole cost when tracing is off.
 */
import { randomFillSync } from "node:crypto";
import {
  MAX_SPAN_ATTRIBUTE_VALUE_CHARS,
  MAX_SPAN_ATTRIBUTES,
  MAX_SPAN_NAME_CHARS,
  MAX_SPANS_PER_CALL,
  type SpanAttributeValue,
  type SpanRecord,
} from "../contract/span-records.js";
import { childTraceparent, readTraceparent } from "../contract/trace-context.js";

/** What `fn` gets: patchbay/plugin's PluginSpan. */
export interface SpanHandle {
  readonly traceparent: string | undefined;
  setAttribute(key: string, value: SpanAttributeValue): void;
  setError(message?: string): void;
  span<T>(name: string, fn: (span: SpanHandle) => T, opts?: SpanOptions): T;
}

export interface SpanOptions {
  kind?: "internal" | "client";
  attributes?: Record<string, SpanAttributeValue>;
}

const NOOP: SpanHandle = Object.freeze({
  traceparent: undefined,
  setAttribute() {},
  setError() {},
  span: <T>(_name: string, fn: (span: SpanHandle) => T): T => fn(NOOP),
});

const ids = Buffer.alloc(8 * 64);
let idAt = ids.length;

/** A random span ID, not all zero; random bytes are drawn 64 IDs at a time. */
function newSpanId(): string {
  for (;;) {
    if (idAt >= ids.length) {
      randomFillSync(ids);
      idAt = 0;
    }
    const id = ids.toString("hex", idAt, idAt + 8);
    idAt += 8;
    if (id !== "0000000000000000") return id;
  }
}

const now = () => performance.timeOrigin + performance.now();

/** One traced call's recorder: its span records until they are sent, bounded as the host bounds them. */
export class CallSpans {
  private readonly records: SpanRecord[] = [];
  private sent = false;
  private readonly spanId: string;

  constructor(readonly traceparent: string) {
    this.spanId = readTraceparent(traceparent)!.spanId;
  }

  /** Runs `fn` in a new span, child of `parent` (the call's span when null). */
  run<T>(parent: string | null, name: string, fn: (span: SpanHandle) => T, opts?: SpanOptions): T {
    if (this.sent || this.records.length >= MAX_SPANS_PER_CALL) return fn(NOOP);
    const rec: SpanRecord = {
      id: newSpanId(),
      parent: parent ?? this.spanId,
      name: String(name).slice(0, MAX_SPAN_NAME_CHARS) || "span",
      kind: opts?.kind === "client" ? "client" : "internal",
      start: now(),
      end: 0,
    };
    const handle = this.handle(rec);
    if (opts?.attributes) for (const [k, v] of Object.entries(opts.attributes)) handle.setAttribute(k, v);
    const end = () => {
      if (rec.end !== 0) return;
      rec.end = now();
      if (!this.sent && this.records.length < MAX_SPANS_PER_CALL) this.records.push(rec);
    };
    let out: T;
    try {
      out = fn(handle);
    } catch (err) {
      rec.error ??= errorText(err);
      end();
      throw err;
    }
    if (out instanceof Promise)
      return out.then(
        (v) => (end(), v),
        (err) => {
          rec.error ??= errorText(err);
          end();
          throw err;
        },
      ) as T;
    end();
    return out;
  }

  /** The records so far, once; spans that end later are not recorded. */
  take(): SpanRecord[] | null {
    this.sent = true;
    return this.records.length > 0 ? this.records : null;
  }

  private handle(rec: SpanRecord): SpanHandle {
    return {
      traceparent: childTraceparent(this.traceparent, rec.id),
      setAttribute(key, value) {
        const attrs = (rec.attributes ??= {});
        if (!(key in attrs) && Object.keys(attrs).length >= MAX_SPAN_ATTRIBUTES) return;
        attrs[key] = typeof value === "string" ? value.slice(0, MAX_SPAN_ATTRIBUTE_VALUE_CHARS) : value;
      },
      setError(message) {
        rec.error = String(message ?? "error").slice(0, MAX_SPAN_ATTRIBUTE_VALUE_CHARS);
      },
      span: (name, fn, opts) => this.run(rec.id, name, fn, opts),
    };
  }
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.name : typeof err;
  return text.slice(0, MAX_SPAN_ATTRIBUTE_VALUE_CHARS);
}

/** ctx.trace: spans of the call in progress (`current`), or no-op spans. */
export function traceApi(current: () => CallSpans | null | undefined) {
  return Object.freeze({
    span<T>(name: string, fn: (span: SpanHandle) => T, opts?: SpanOptions): T {
      const spans = current();
      return spans ? spans.run(null, name, fn, opts) : fn(NOOP);
    },
    get traceparent(): string | undefined {
      return current()?.traceparent;
    },
  });
}
