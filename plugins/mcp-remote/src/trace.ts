/**
 * The caller's trace passed on to the upstream server. Each traced tools/call is sent in a
 * CLIENT span of the plugin's own (ctx.trace, a child of the span around the plugin's work),
 * and that span's traceparent goes upstream: in `params._meta.traceparent` on every transport
 * (how MCP carries it over stdio), and for an HTTP server also as the W3C `traceparent` header
 * of the POST that carries the request.
 *
 * The SDK's HTTP transport builds each POST itself, a few awaits after the request left the
 * Client, and concurrent calls share it, so nothing but the body ties a POST to its call. While a
 * traced request is in flight its traceparent is pending here, and the fetch adds the header
 * when the body holds that exact string: a span ID is random, so no other message holds it.
 * With nothing pending (the call is untraced, or tracing is off) the fetch does one size check.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { PluginSpan } from "patchbay/plugin";

/** Traceparents of the traced requests in flight on one HTTP connection. */
export class TraceHeaders {
  private readonly pending = new Set<string>();

  async around<T>(traceparent: string, send: () => Promise<T>): Promise<T> {
    this.pending.add(traceparent);
    try {
      return await send();
    } finally {
      this.pending.delete(traceparent);
    }
  }

  /** `base` with the header added to each POST whose body carries a pending traceparent. */
  wrap(base: FetchLike): FetchLike {
    return (url, init) => {
      if (this.pending.size === 0 || typeof init?.body !== "string") return base(url, init);
      const body = init.body;
      for (const traceparent of this.pending) {
        if (!body.includes(traceparent)) continue;
        const headers = new Headers(init.headers);
        headers.set("traceparent", traceparent);
        return base(url, { ...init, headers });
      }
      return base(url, init);
    };
  }
}

interface ToolParams {
  name: string;
  _meta?: Record<string, unknown>;
}

/**
 * Sends one tools/call (`send`) in a CLIENT span child of `span`, its traceparent in the
 * params' `_meta` and, with `headers` (an HTTP connection), in the POST's header. Untraced
 * (no span, or a span that records nothing): `send` alone.
 */
export function tracedRequest<T>(
  span: PluginSpan | undefined,
  params: ToolParams,
  headers: TraceHeaders | null,
  send: () => Promise<T>,
): Promise<T> {
  if (!span?.traceparent) return send();
  return span.span(
    `tools/call ${params.name}`,
    (request) => {
      const traceparent = request.traceparent;
      if (!traceparent) return send();
      params._meta = { ...params._meta, traceparent };
      return headers ? headers.around(traceparent, send) : send();
    },
    {
      kind: "client",
      attributes: {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": params.name,
        "network.transport": headers ? "tcp" : "pipe",
      },
    },
  );
}
