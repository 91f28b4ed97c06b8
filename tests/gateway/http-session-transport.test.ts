/**
 * The session transport's fast path in process, beside the SDK's own transport: a real node:http
 * server and a real SDK server behind each, the same bytes sent to both over a socket. The fast
 * path takes a plain tools/call (and only that), and its reply is the SDK transport's byte for byte,
 * whether the SDK server runs the call or the lane does (tool-call-lane.ts, which skips the server's
 * Protocol dispatch): results the schema passes unchanged or rewrites, results it refuses, errors
 * thrown, cancellation.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import net, { type AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, McpError, type CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainToolCall, SessionTransport } from "../../src/gateway/http-session-transport.js";

type Either = SessionTransport | StreamableHTTPServerTransport;

/** Calls cancelled, by whoever ran them ("server" or "lane"), with the reason their signal got. */
const aborted: { by: string; reason: unknown }[] = [];

/** The tools: each answers (or fails) in a way the SDK server's checks treat differently. */
async function tool(params: CallToolRequest["params"], signal: AbortSignal, by: string): Promise<unknown> {
  const message = String(params.arguments?.message);
  switch (params.name) {
    case "echo":
      return { content: [{ type: "text", text: `Echo: ${message}` }] };
    case "rich": // the schema strips the text block's stray key and keeps the result's
      return {
        zzz: true,
        structuredContent: { b: 1, a: [2] },
        content: [
          { text: "t", type: "text", stray: 1 },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
        _meta: { m: 1 },
        isError: false,
      };
    case "bad":
      return { content: "not a list" };
    case "mcp-error":
      throw new McpError(-32042, "custom failure", { why: message });
    case "throws":
      throw new Error("boom");
    case "throws-string":
      throw "a string";
    case "slow":
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => {
          aborted.push({ by, reason: signal.reason });
          reject(new Error("aborted"));
        }),
      );
    default:
      return { content: [], isError: true };
  }
}

/**
 * A Streamable HTTP server on the given transport kind; `fast` records what answersFast said, `ran`
 * who ran each call ("lane": the "lane" kind's fast path; "server": the SDK server's handler).
 */
async function serve(
  kind: "fast" | "lane" | "sdk",
): Promise<{ port: number; fast: boolean[]; ran: string[]; http: HttpServer }> {
  const sessions = new Map<string, Either>();
  const fast: boolean[] = [];
  const ran: string[] = [];
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body: unknown = text ? JSON.parse(text) : undefined;
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
    const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
    const lane = {
      toolCall: (params: CallToolRequest["params"], extra: { signal: AbortSignal }) => {
        ran.push("lane");
        return tool(params, extra.signal, "lane") as never;
      },
      notify: () => Promise.resolve(),
    };
    const transport: Either =
      kind === "sdk"
        ? new StreamableHTTPServerTransport(opts)
        : new SessionTransport(opts, kind === "lane" ? lane : undefined);
    server.setRequestHandler(CallToolRequestSchema, async (r, extra) => {
      ran.push("server");
      return tool(r.params, extra.signal, "server") as never;
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  return { port: (http.address() as AddressInfo).port, fast, ran, http };
}

/** One request on its own connection; the whole reply as sent, Date and session id blanked. */
function exchange(
  port: number,
  body: string,
  session?: string,
  method = "POST",
): Promise<{ text: string; session?: string }> {
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
      `${method} /mcp HTTP/1.1`,
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
  for (const s of servers) {
    s.http.closeAllConnections();
    s.http.close();
  }
});

describe("the session transport's fast path", () => {
  let fast: Awaited<ReturnType<typeof serve>>;
  let lane: Awaited<ReturnType<typeof serve>>;
  let sdk: Awaited<ReturnType<typeof serve>>;
  const sessions: Record<string, string> = {};
  beforeAll(async () => {
    fast = await serve("fast");
    lane = await serve("lane");
    sdk = await serve("sdk");
    servers.push(fast, lane, sdk);
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    for (const [name, s] of [
      ["fast", fast],
      ["lane", lane],
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

  const call = (id: number, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

  it("runs a plain tools/call in the lane when given one, with the SDK server's answer to the byte", async () => {
    const params = [
      { name: "echo", arguments: { message: "hi" } },
      { name: "rich" },
      { name: "bad" },
      { name: "mcp-error", arguments: { message: "m" } },
      { name: "throws" },
      { name: "throws-string" },
      { name: "nothing-by-this-name" },
      { name: "echo", _meta: { trace: "t" } },
      // Off the shapes' fast path: the schema's output is what runs.
      { name: "echo", arguments: { message: "x" }, stray: 1 },
    ];
    for (const [i, p] of params.entries()) {
      const a = await exchange(lane.port, call(20 + i, p), sessions.lane);
      const b = await exchange(sdk.port, call(20 + i, p), sessions.sdk);
      const c = await exchange(fast.port, call(20 + i, p), sessions.fast);
      expect([lane.fast.at(-1), lane.ran.at(-1), fast.ran.at(-1)]).toEqual([true, "lane", "server"]);
      expect(a.text).toBe(b.text);
      expect(c.text).toBe(b.text);
    }
  });

  it("leaves a call whose params the schema refuses to the SDK server, which answers its error", async () => {
    const before = lane.ran.length;
    const a = await exchange(lane.port, call(40, { name: 5 }), sessions.lane);
    const b = await exchange(sdk.port, call(40, { name: 5 }), sessions.sdk);
    expect(lane.ran.length).toBe(before);
    expect(a.text).toBe(b.text);
    expect(a.text).toMatch(/"error"/);
  });

  it("aborts a lane call on notifications/cancelled and on the session's end, as the SDK server does", async () => {
    const cancel = JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 50, reason: "the user stopped it" },
    });
    for (const s of [lane, sdk]) {
      const session = s === lane ? sessions.lane : sessions.sdk;
      void exchange(s.port, call(50, { name: "slow" }), session).catch(() => undefined);
      await until(() => s.ran.at(-1) === (s === lane ? "lane" : "server"));
      s.ran.push("-");
      expect((await exchange(s.port, cancel, session)).text).toMatch(/^HTTP\/1\.1 202/);
      void exchange(s.port, call(51, { name: "slow" }), session).catch(() => undefined);
      await until(() => s.ran.at(-1) === (s === lane ? "lane" : "server"));
      expect((await exchange(s.port, "", session, "DELETE")).text).toMatch(/^HTTP\/1\.1 200/);
    }
    await until(() => aborted.length === 4);
    const seen = aborted.map((a) => [a.by, a.reason instanceof Error ? a.reason.name : a.reason]);
    expect(seen).toEqual([
      ["lane", "the user stopped it"],
      ["lane", "AbortError"],
      ["server", "the user stopped it"],
      ["server", "AbortError"],
    ]);
  });
});

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
}

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
