/**
 * The session transport's fast path in process, beside the SDK's own transport: a real node:http
 * server and a real SDK server behind each, the same bytes sent to both over a socket. The fast
 * path takes a plain tools/call (and only that), and its reply is the SDK transport's byte for byte.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import net, { type AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainToolCall, SessionTransport } from "../../src/gateway/http-session-transport.js";

type Either = SessionTransport | StreamableHTTPServerTransport;

/** A Streamable HTTP server on the given transport kind; `fast` records what answersFast said. */
async function serve(kind: "fast" | "sdk"): Promise<{ port: number; fast: boolean[]; http: HttpServer }> {
  const sessions = new Map<string, Either>();
  const fast: boolean[] = [];
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) {
      if (known instanceof SessionTransport) {
        const took = known.answersFast(req, res, body);
        fast.push(took);
        if (took) return;
      }
      return known.handleRequest(req, res, body);
    }
    const opts = {
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid: string) => void sessions.set(sid, transport),
      enableJsonResponse: true,
    };
    const transport: Either = kind === "fast" ? new SessionTransport(opts) : new StreamableHTTPServerTransport(opts);
    const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(CallToolRequestSchema, async (r) => ({
      content: [{ type: "text", text: `Echo: ${String(r.params.arguments?.message)}` }],
    }));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  return { port: (http.address() as AddressInfo).port, fast, http };
}

/** One request on its own connection; the whole reply as sent, Date and session id blanked. */
function exchange(port: number, body: string, session?: string): Promise<{ text: string; session?: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1");
    let out = "";
    s.on("data", (d) => (out += d));
    s.on("error", reject);
    s.on("end", () => {
      const sid = /mcp-session-id: (\S+)/i.exec(out)?.[1];
      resolve({ text: out.replace(/^Date: .*$/m, "Date: -").replaceAll(sid ?? "\0", "SID"), session: sid });
    });
    const head = [
      "POST /mcp HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      ...(session ? [`mcp-session-id: ${session}`, "mcp-protocol-version: 2025-06-18"] : []),
      `Content-Length: ${Buffer.byteLength(body)}`,
      "Connection: close",
    ];
    s.end(`${head.join("\r\n")}\r\n\r\n${body}`);
  });
}

const servers: Awaited<ReturnType<typeof serve>>[] = [];
afterAll(() => {
  for (const s of servers) s.http.close();
});

describe("the session transport's fast path", () => {
  let fast: Awaited<ReturnType<typeof serve>>;
  let sdk: Awaited<ReturnType<typeof serve>>;
  const sessions: Record<string, string> = {};
  beforeAll(async () => {
    fast = await serve("fast");
    sdk = await serve("sdk");
    servers.push(fast, sdk);
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    for (const [name, s] of [
      ["fast", fast],
      ["sdk", sdk],
    ] as const) {
      sessions[name] = (await exchange(s.port, init)).session!;
      await exchange(s.port, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), sessions[name]);
    }
  });

  it("answers a plain tools/call itself, with the SDK transport's reply to the byte", async () => {
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "hi" } },
    });
    const a = await exchange(fast.port, call, sessions.fast);
    const b = await exchange(sdk.port, call, sessions.sdk);
    expect(fast.fast.at(-1)).toBe(true);
    expect(a.text).toBe(b.text);
    expect(a.text).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-type: application\/json\r\nmcp-session-id: SID\r\n/);
  });

  it("leaves everything else to the SDK transport, which answers as it would alone", async () => {
    for (const body of [
      [{ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo", arguments: { message: "x" } } }],
      { jsonrpc: "2.0", id: 5, method: "tools/list", params: {} },
      { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "echo" }, extra: 1 },
    ]) {
      const before = fast.fast.length;
      const a = await exchange(fast.port, JSON.stringify(body), sessions.fast);
      const b = await exchange(sdk.port, JSON.stringify(body), sessions.sdk);
      expect(fast.fast.slice(before)).toEqual([false]);
      expect(a.text).toBe(b.text);
    }
  });
});

describe("plainToolCall", () => {
  const req = (headers: Record<string, string>, raw?: string[]) =>
    ({
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      rawHeaders: raw ?? ["Content-Type", "application/json"],
    }) as unknown as IncomingMessage;
  const ok = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a", arguments: {} } };

  it("takes a single tools/call request with a string or integer id and the headers the SDK requires", () => {
    expect(plainToolCall(req({}), ok)).toBe(true);
    expect(plainToolCall(req({}), { ...ok, id: "x" })).toBe(true);
    expect(plainToolCall(req({ "mcp-protocol-version": "2025-06-18" }), ok)).toBe(true);
    expect(plainToolCall(req({}), { ...ok, params: { ...ok.params, _meta: { trace: 1 } } })).toBe(true);
  });

  it("declines anything else", () => {
    const no = (headers: Record<string, string>, body: unknown, raw?: string[]) =>
      expect(plainToolCall(req(headers, raw), body)).toBe(false);
    no({}, [ok]);
    no({}, null);
    no({}, { ...ok, method: "tools/list" });
    no({}, { ...ok, jsonrpc: "1.0" });
    no({}, { ...ok, extra: 1 });
    no({}, { ...ok, id: 1.5 });
    no({}, { ...ok, id: null });
    no({}, { ...ok, id: 2 ** 60 });
    no({}, { ...ok, params: undefined });
    no({}, { ...ok, params: [] });
    no({}, { ...ok, params: { ...ok.params, task: {} } });
    no({}, { ...ok, params: { ...ok.params, _meta: { progressToken: 1 } } });
    no({}, { ...ok, params: { ...ok.params, _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } } });
    no({}, { ...ok, params: { ...ok.params, _meta: "x" } });
    no({ accept: "application/json" }, ok);
    no({ "content-type": "application/json; charset=utf-8" }, ok);
    no({ "content-type": "text/plain" }, ok);
    no({}, ok, ["Content-Type", "application/json", "content-type", "application/json"]);
    no({ "mcp-protocol-version": "1999-01-01" }, ok);
  });
});
