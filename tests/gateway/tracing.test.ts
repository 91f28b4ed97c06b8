/**
 * OpenTelemetry traces from the real `serve --http`: with OTEL_EXPORTER_OTLP_ENDPOINT naming an
 * OTLP/HTTP receiver on 127.0.0.1 (a plain node:http server here, reading the exporter's JSON), a
 * tools/call carrying a W3C traceparent in `_meta` is exported as a SERVER span of that trace,
 * child of the caller's span; with OTEL_SDK_DISABLED=true, nothing is exported.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, until } from "../helpers.js";
import { gatewayConfig, startHttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string } }[];
}

async function receiver(): Promise<{ url: string; spans: OtlpSpan[]; posts: string[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const posts: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      posts.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
      const doc = JSON.parse(body) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, posts, server };
}

const attr = (s: OtlpSpan, key: string) => s.attributes.find((a) => a.key === key)?.value.stringValue;

describe("serve --http OpenTelemetry traces", () => {
  it("exports a tools/call as a SERVER span of the caller's trace (traceparent in _meta)", async () => {
    const otlp = await receiver();
    const s = await startHttpServe(gatewayConfig().file, {
      PATCHBAY_TOKEN: "trace-token",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parentId = "00f067aa0ba902b7";
    try {
      const client = await s.connect();
      await client.callTool({
        name: "gw__echo",
        arguments: { text: "traced" },
        _meta: { traceparent: `00-${traceId}-${parentId}-01` },
      });
      await client.callTool({ name: "gw__fail", arguments: {} });
      await client.close();
    } finally {
      await s.stop(); // the batch is sent on the way out
    }
    try {
      await until(() => otlp.spans.length >= 4, 20_000, "four spans at the OTLP receiver");
      expect(otlp.posts[0]).toMatch(/^POST \/v1\/traces application\/json/);
      const echo = otlp.spans.find((x) => x.name === "tools/call gw__echo");
      expect(echo).toMatchObject({ traceId, parentSpanId: parentId, kind: 2 });
      // The host's call to the worker is a CLIENT span inside it.
      const call = otlp.spans.find((x) => x.parentSpanId === echo?.spanId);
      expect(call).toMatchObject({ traceId, name: "call mcpConnectors/gw", kind: 3 });
      expect(attr(echo as OtlpSpan, "patchbay.instance")).toBe("mcpConnectors/gw");
      expect(attr(echo as OtlpSpan, "patchbay.outcome")).toBe("ok");
      const fail = otlp.spans.find((x) => x.name === "tools/call gw__fail") as OtlpSpan;
      expect(fail.traceId).not.toBe(traceId);
      expect(fail.parentSpanId ?? "").toBe("");
      expect(attr(fail, "error.type")).toBe("tool_error");
      // Nothing of the call's arguments or results leaves in a span.
      expect(JSON.stringify(otlp.spans)).not.toContain("traced");
    } finally {
      otlp.server.close();
    }
  });

  it("takes a stateless request's traceparent header as the parent, and _meta when the header is not valid", async () => {
    const otlp = await receiver();
    const s = await startHttpServe(
      gatewayConfig().file,
      {
        PATCHBAY_TOKEN: "trace-token",
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      },
      ["--stateless"],
    );
    const traceId = "5bf92f3577b34da6a3ce929d0e0e4736";
    const metaParent = `00-${"a".repeat(32)}-${"b".repeat(16)}-01`;
    try {
      const good = await s.connect(undefined, { traceparent: `00-${traceId}-10f067aa0ba902b7-01`, tracestate: "pb=1" });
      await good.callTool({ name: "gw__echo", arguments: { text: "a" }, _meta: { traceparent: metaParent } });
      await good.close();
      const bad = await s.connect(undefined, { traceparent: `00-${traceId.toUpperCase()}-10f067aa0ba902b7-01` });
      await bad.callTool({ name: "gw__whoami", arguments: {}, _meta: { traceparent: metaParent } });
      await bad.close();
    } finally {
      await s.stop();
    }
    try {
      await until(() => otlp.spans.filter((x) => x.kind === 2).length >= 2, 20_000, "two SERVER spans");
      const echo = otlp.spans.find((x) => x.name === "tools/call gw__echo");
      expect(echo).toMatchObject({ traceId, parentSpanId: "10f067aa0ba902b7" });
      const whoami = otlp.spans.find((x) => x.name === "tools/call gw__whoami");
      expect(whoami).toMatchObject({ traceId: "a".repeat(32), parentSpanId: "b".repeat(16) });
    } finally {
      otlp.server.close();
    }
  });

  it("exports nothing when OTEL_SDK_DISABLED=true, even with an endpoint set", async () => {
    const otlp = await receiver();
    const s = await startHttpServe(gatewayConfig().file, {
      PATCHBAY_TOKEN: "trace-token",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SDK_DISABLED: "true",
    });
    try {
      const client = await s.connect();
      await client.callTool({
        name: "gw__echo",
        arguments: { text: "x" },
        _meta: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
      });
      await client.close();
    } finally {
      await s.stop();
      otlp.server.close();
    }
    expect(otlp.posts).toEqual([]);
  });
});
