/**
 * OpenTelemetry traces of the gateway's tool calls, configured by the standard OTEL_* variables
 * and off when none asks for traces: then this module's SDK imports never run (serve imports it
 * only when tracingWanted() says so), and a call pays one null check (ToolCalls.tracer).
 *
 * One SERVER span per tools/call, child of the caller's W3C trace context when the request
 * carries `params._meta.traceparent` (on either transport), exported over OTLP/HTTP (JSON) by the
 * official exporter, which reads OTEL_EXPORTER_OTLP_* itself. No global context manager is set:
 * Node's AsyncLocalStorage would turn on promise hooks for the whole process (a cost on every
 * await); the parent is passed explicitly. Tool names and error codes become attributes, through
 * the host's scrubber (a resolved secret never leaves in a span); arguments and results never do.
 */
import type { Scrubber } from "../secrets.js";

export interface CallTracer {
  /** Starts the span of one tools/call; the returned function ends it with the call's instance and outcome. */
  start(tool: string, meta: Record<string, unknown> | undefined): (instance: string, outcome: string) => void;
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
  const provider = new sdk.TracerProvider({
    resource,
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: new exporter.OTLPTraceExporter() })],
  });
  const tracer = provider.getTracer("patchbay");
  const propagator = new core.W3CTraceContextPropagator();
  const clip = (s: string) => scrubber.scrub(s.length > MAX_ATTRIBUTE_CHARS ? s.slice(0, MAX_ATTRIBUTE_CHARS) : s);
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
      return (instance, outcome) => {
        span.setAttribute("patchbay.instance", clip(instance));
        span.setAttribute("patchbay.outcome", clip(outcome));
        if (outcome !== "ok") {
          span.setAttribute("error.type", clip(outcome));
          span.setStatus({ code: api.SpanStatusCode.ERROR });
        }
        span.end();
      };
    },
    shutdown: () => provider.shutdown(),
  };
}
