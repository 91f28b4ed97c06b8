/**
 * One trace end to end, all real parts on 127.0.0.1: a client calls `serve --http` with a W3C
 * traceparent header; mcp-remote instances pass the trace on to a real SDK Streamable HTTP server
 * (which records the POST's traceparent header) and a real SDK stdio server (which answers the
 * `_meta` it got); the exported spans, received by an OTLP/HTTP endpoint, form one tree: client
 * span → gateway SERVER span → host call span → plugin span → upstream request span, the last
 * being the parent each upstream saw. A plugin's span attribute holding a ${VAR} secret leaves
 * scrubbed. With no OTEL_* variable, serve loads none of the SDK's code.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Server as McpServer } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, refuseModules, ROOT, until, writeConfig } from "../helpers.js";
import { startHttpServe, toolText } from "./_gateway.js";

afterAll(cleanupTempDirs);

const SECRET = "upstr3am-s3cret-t0ken";
const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN = "b7ad6b7169203331";
const TRACEPARENT = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;
const META_ECHO = path.join(ROOT, "tests", "fixtures", "mcp", "meta-echo-server.mjs");

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; boolValue?: boolean } }[];
  status?: { code?: number };
}

/** An OTLP/HTTP receiver: the exporter posts OTLP/JSON (exporter-trace-otlp-http sends no protobuf). */
async function otlpReceiver(): Promise<{ url: string; spans: OtlpSpan[]; answers: unknown[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const answers: unknown[] = [];
  const server = createServer(async (req, res) => {
    const doc = JSON.parse(await bodyOf(req)) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
    for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
    const answer = JSON.stringify({ partialSuccess: {} });
    // What the exporter will make of the answer, read by the official transformer.
    answers.push(JsonTraceSerializer.deserializeResponse(new TextEncoder().encode(answer)));
    res.writeHead(200, { "content-type": "application/json" }).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, answers, server };
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

/** A real SDK server over Streamable HTTP (stateless, JSON answers), noting each tools/call's traceparent header. */
async function httpUpstream(): Promise<{ url: string; seen: (string | undefined)[]; auth: string[]; server: Server }> {
  const seen: (string | undefined)[] = [];
  const auth: string[] = [];
  const server = createServer(async (req, res) => {
    if (req.method !== "POST") return res.writeHead(405).end();
    const body = JSON.parse(await bodyOf(req)) as { method?: string };
    auth.push(String(req.headers.authorization));
    if (body.method === "tools/call") seen.push(req.headers.traceparent as string | undefined);
    const mcp = new McpServer({ name: "http-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: "meta", inputSchema: { type: "object" } }],
    }));
    mcp.setRequestHandler(CallToolRequestSchema, (r) => ({
      content: [{ type: "text", text: JSON.stringify(r.params._meta ?? null) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, seen, auth, server };
}

function config(upstreamUrl: string): string {
  return writeConfig({
    defaults: { timeout_ms: 15_000, health_interval_ms: 60_000 },
    mcpConnectors: {
      web: {
        plugin: "mcp-remote",
        config: { url: upstreamUrl, headers: { Authorization: "Bearer ${UPSTREAM_TOKEN}" } },
      },
      pipe: { plugin: "mcp-remote", config: { command: "node", args: [META_ECHO] } },
      traced: { plugin: "fx-traced", config: { token: "${UPSTREAM_TOKEN}" } },
    },
  }).file;
}

const attr = (s: OtlpSpan, key: string) => s.attributes.find((a) => a.key === key)?.value;

describe("a traced call end to end", () => {
  it("reaches HTTP and stdio upstreams in the client's trace, and the exported spans form one tree", async () => {
    const [otlp, upstream] = await Promise.all([otlpReceiver(), httpUpstream()]);
    const s = await startHttpServe(config(upstream.url), {
      PATCHBAY_TOKEN: "e2e-token",
      UPSTREAM_TOKEN: SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
    let stdioMeta: { traceparent?: string } = {};
    try {
      const client = await s.connect(undefined, { traceparent: TRACEPARENT });
      await client.callTool({ name: "web__meta", arguments: {} });
      // The header wins over another context in _meta.
      const other = `00-${"1".repeat(32)}-${"2".repeat(16)}-01`;
      stdioMeta = JSON.parse(
        toolText(await client.callTool({ name: "pipe__meta", arguments: {}, _meta: { traceparent: other } })),
      );
      await client.callTool({ name: "traced__nest", arguments: {} });
      await client.close();
    } finally {
      await s.stop();
    }
    try {
      await until(() => otlp.spans.length >= 12, 20_000, "the spans of three calls at the OTLP receiver");
      expect(otlp.answers[0]).toEqual({ partialSuccess: {} });
      const byId = new Map(otlp.spans.map((x) => [x.spanId, x]));
      /** The names from a span up to the client's span, which only the client knows. */
      const chain = (id: string): string[] => {
        const names: string[] = [];
        for (let at = byId.get(id); at; at = byId.get(at.parentSpanId ?? "")) {
          expect(at.traceId).toBe(TRACE_ID);
          names.push(at.name);
          if (at.parentSpanId === CLIENT_SPAN) names.push("client");
        }
        return names;
      };
      // HTTP: the POST's traceparent header names our upstream request span.
      expect(upstream.seen).toHaveLength(1);
      const [, httpTrace, httpParent] = upstream.seen[0]!.split("-");
      expect(httpTrace).toBe(TRACE_ID);
      expect(chain(httpParent)).toEqual([
        "tools/call meta",
        "mcp-remote meta",
        "call mcpConnectors/web",
        "tools/call web__meta",
        "client",
      ]);
      const request = byId.get(httpParent)!;
      expect(request.kind).toBe(3); // CLIENT
      expect(attr(request, "patchbay.plugin_span")).toEqual({ boolValue: true });
      expect(byId.get(byId.get(request.parentSpanId!)!.parentSpanId!)!.kind).toBe(3); // the host call: CLIENT
      // stdio: the same, in _meta.
      const [, stdioTrace, stdioParent] = String(stdioMeta.traceparent).split("-");
      expect(stdioTrace).toBe(TRACE_ID);
      expect(chain(stdioParent)).toEqual([
        "tools/call meta",
        "mcp-remote meta",
        "call mcpConnectors/pipe",
        "tools/call pipe__meta",
        "client",
      ]);
      // A plugin's attribute holding the secret leaves scrubbed; the secret is in no span.
      const outer = otlp.spans.find((x) => x.name === "outer")!;
      expect(chain(outer.spanId)).toEqual(["outer", "call mcpConnectors/traced", "tools/call traced__nest", "client"]);
      expect(attr(outer, "fx.token")?.stringValue).toBe("[REDACTED]");
      expect(upstream.auth).toContain(`Bearer ${SECRET}`);
      expect(JSON.stringify(otlp.spans)).not.toContain(SECRET);
      const inner = otlp.spans.find((x) => x.name === "inner")!;
      expect(inner.status?.code).toBe(2); // ERROR
    } finally {
      otlp.server.close();
      upstream.server.close();
    }
  });

  it("loads none of the SDK's code when no OTEL_* variable asks, and a traced request still works", async () => {
    const bundle = path.join(ROOT, "dist", "cli-bundle");
    // The chunks the tracing imports became (the SDK, exporter, resources and core are bundled).
    const sdkChunks = readdirSync(bundle).filter((f) => {
      const text = readFileSync(path.join(bundle, f), "utf8");
      return /node_modules\/@opentelemetry\/(sdk-trace|exporter-trace-otlp-http|resources|core)\//.test(text);
    });
    expect(sdkChunks.length).toBeGreaterThan(0);
    const refused = new RegExp(
      `/cli-bundle/(${sdkChunks.map((f) => f.replace(/[.$]/g, "\\$&")).join("|")})$|@opentelemetry/`,
    );
    const upstream = await httpUpstream();
    const s = await startHttpServe(
      config(upstream.url),
      { PATCHBAY_TOKEN: "e2e-token", UPSTREAM_TOKEN: SECRET },
      [],
      refuseModules(refused),
    );
    try {
      const client = await s.connect(undefined, { traceparent: TRACEPARENT });
      const meta = JSON.parse(toolText(await client.callTool({ name: "pipe__meta", arguments: {} })));
      expect(meta?.traceparent).toBeUndefined();
      await client.callTool({ name: "web__meta", arguments: {} });
      expect(upstream.seen).toEqual([undefined]);
      await client.close();
    } finally {
      await s.stop();
      upstream.server.close();
    }
    expect(s.stderr()).not.toContain("loaded file:");
  });
});
