/**
 * OpenTelemetry traces of the gateway's tool calls, configured by the standard OTEL_* variables
 * and off when none asks for traces: then this module's SDK imports never run (serve imports it
 * only when tracingWanted() says so), and a call pays one null check (ToolCalls.tracer).
 *
 * Per tools/call: a SERVER span, child of the caller's W3C trace context (`params._meta`, where
 * trace-header.ts also puts a `serve --http` request's traceparent header); inside it a CLIENT
 * span around the host's call to the plugin's worker, whose traceparent the call carries
 * across; and under that the plugin's own spans, recorded in the worker and exported here
 * (worker-spans.ts). Exported over OTLP/HTTP (JSON) by the official exporter, which reads
 * OTEL_EXPORTER_OTLP_* itself. No global context manager is set: Node's AsyncLocalStorage would
 * turn on promise hooks for the whole process (a cost on every await); parents are passed
 * explicitly. Names and attribute values pass the host's scrubber (a resolved secret never
 * leaves in a span); a call's arguments and results are never recorded.
 */
import type { SpanContext } from "@opentelemetry/api";
import type { CallTrace } from "../contract/span-records.js";
import type { Scrubber } from "../secrets.js";
import { ForcedIds, exportWorkerSpans } from "./worker-spans.js";

export type { CallTrace };

/** One tools/call's span. */
export interface CallSpan {
  /** Runs `invoke` (the host call) in a CLIENT span of its own, passing it the call's trace. */
  around<T>(instance: string, method: string, invoke: (trace: CallTrace) => Promise<T>): Promise<T>;
  /** Ends the span with the call's instance and outcome. */
  end(instance: string, outcome: string): void;
}

export interface CallTracer {
  /** Starts the span of one tools/call. */
  start(tool: string, meta: Record<string, unknown> | undefined): CallSpan;
  shutdown(): Promise<void>;
}

/** Whether the environment asks for traces (an OTLP endpoint, or OTEL_TRACES_EXPORTER), and does not disable them. */
export function tracingWanted(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true" || env.OTEL_TRACES_EXPORTER === "none") return false;
  return !!(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_TRACES_EXPORTER);
}

const MAX_ATTRIBUTE_CHARS = 200;

export async function loadTracing(scrubber: Scrubber): Promise<CallTracer> {
  const [api, core, sdk, exporter, resources] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/core"),
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": "patchbay" }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const ids = new ForcedIds(new sdk.RandomIdGenerator());
  const provider = new sdk.TracerProvider({
    resource,
    idGenerator: ids,
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new exporter.OTLPTraceExporter() })],
  });
  const tracer = provider.getTracer("patchbay");
  const propagator = new core.W3CTraceContextPropagator();
  const clip = (s: string) => scrubber.scrub(s.length > MAX_ATTRIBUTE_CHARS ? s.slice(0, MAX_ATTRIBUTE_CHARS) : s);

  /** The W3C traceparent of a span (what the propagator would inject, without building a context for it). */
  const traceparentOf = (c: SpanContext): string =>
    `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 0xff).toString(16).padStart(2, "0")}`;

  return {
    start(tool, meta) {
      const carrier: Record<string, string> = {};
      const traceparent = meta?.traceparent;
      const tracestate = meta?.tracestate;
      // Untrusted input: only short strings; the propagator checks the W3C format itself.
      if (typeof traceparent === "string" && traceparent.length <= 128) carrier.traceparent = traceparent;
      if (typeof tracestate === "string" && tracestate.length <= 512) carrier.tracestate = tracestate;
      const parent = propagator.extract(api.ROOT_CONTEXT, carrier, api.defaultTextMapGetter);
      const span = tracer.startSpan(
        `tools/call ${clip(tool)}`,
        {
          kind: api.SpanKind.SERVER,
          attributes: { "mcp.method.name": "tools/call", "gen_ai.tool.name": clip(tool) },
        },
        parent,
      );
      const inSpan = api.trace.setSpan(parent, span);
      return {
        async around(instance, method, invoke) {
          const call = tracer.startSpan(
            `call ${clip(instance)}`,
            {
              kind: api.SpanKind.CLIENT,
              attributes: { "rpc.system": "patchbay", "patchbay.instance": clip(instance), "rpc.method": clip(method) },
            },
            inSpan,
          );
          const context = call.spanContext();
          const trace: CallTrace = {
            traceparent: traceparentOf(context),
            spans: (records) => exportWorkerSpans(api, tracer, ids, scrubber, context, records),
          };
          try {
            return await invoke(trace);
          } catch (err) {
            call.setStatus({ code: api.SpanStatusCode.ERROR });
            const code = (err as { code?: unknown } | null)?.code;
            call.setAttribute("error.type", typeof code === "string" ? clip(code) : "error");
            throw err;
          } finally {
            call.end();
          }
        },
        end(instance, outcome) {
          span.setAttribute("patchbay.instance", clip(instance));
          span.setAttribute("patchbay.outcome", clip(outcome));
          if (outcome !== "ok") {
            span.setAttribute("error.type", clip(outcome));
            span.setStatus({ code: api.SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
    shutdown: () => provider.shutdown(),
  };
}
