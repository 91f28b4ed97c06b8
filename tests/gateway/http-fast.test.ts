/**
 * `serve --http`'s fast path for a plain tools/call (src/gateway/http-session-transport.ts), against
 * the real bin: a request the fast path may take, sent alone, is answered exactly as the same request
 * in a batch of one (which always goes through the SDK transport), refusals included; the checks
 * made before either path still refuse; hostile bodies leave the gateway serving; a client that
 * hangs up mid-call withdraws it.
 */
import { existsSync, readFileSync } from "node:fs";
import { request, type OutgoingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, until } from "../helpers.js";
import { gatewayConfig, slowpokeConfig, startHttpServe, type HttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

interface Reply {
  status: number;
  body: string;
  contentType: string | undefined;
  session: string | undefined;
}

/** A raw POST (headers as an object, or as [name, value, ...] to repeat one). */
function post(url: string, headers: OutgoingHttpHeaders | string[], body: string | Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: text,
          contentType: res.headers["content-type"],
          session: res.headers["mcp-session-id"] as string | undefined,
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

const call = (params: unknown, more: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params,
  ...more,
});
const echo = { name: "gw__echo", arguments: { text: "hi" } };

let s: HttpServe;
let session: string;
let base: Record<string, string>;

beforeAll(async () => {
  const { file } = gatewayConfig({ defaults: { timeout_ms: 5_000, health_interval_ms: 60_000 } });
  s = await startHttpServe(file);
  base = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${s.token}`,
  };
  const init = await post(
    s.url,
    base,
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fast", version: "1" } },
    }),
  );
  session = init.session!;
  base = { ...base, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
  expect(
    (await post(s.url, base, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).status,
  ).toBe(202);
});
afterAll(() => s?.stop());

describe("serve --http fast path for tools/call", () => {
  const cases: [string, Record<string, unknown>, Record<string, string | undefined>?][] = [
    ["a plain call", call(echo)],
    ["a string id", call(echo, { id: "abc" })],
    ["an empty _meta", call({ ...echo, _meta: {} })],
    ["a tool error result", call({ name: "gw__fail", arguments: {} })],
    ["an unknown tool", call({ name: "nope__nothing", arguments: {} })],
    ["arguments the tool's schema refuses", call({ name: "gw__echo", arguments: { text: 5 } })],
    ["a name that is not a string", call({ name: 5, arguments: {} })],
    ["no params", call(undefined)],
    ["an extra top-level key", call(echo, { extra: true })],
    ["jsonrpc 1.0", call(echo, { jsonrpc: "1.0" })],
    ["a fractional id", call(echo, { id: 1.5 })],
    ["a null id", call(echo, { id: null })],
    ["a _meta that is not an object", call({ ...echo, _meta: "x" })],
    ["a task", call({ ...echo, task: { ttl: 1000 } })],
    ["Accept without event streams", call(echo), { accept: "application/json" }],
    ["no Accept", call(echo), { accept: undefined }],
    ["a text/plain Content-Type", call(echo), { "content-type": "text/plain" }],
    ["a Content-Type with a charset", call(echo), { "content-type": "application/json; charset=utf-8" }],
    ["an unsupported protocol version", call(echo), { "mcp-protocol-version": "1999-01-01" }],
    ["no protocol version", call(echo), { "mcp-protocol-version": undefined }],
    // Shapes the lane reads through the schemas rather than its own fast check (stdio-shapes.ts).
    ["a custom _meta key", call({ ...echo, _meta: { trace: "t" } })],
    ["no arguments", call({ name: "gw__echo" })],
    ["an extra params key", call({ ...echo, extra: 1 })],
    ["arguments that are not an object", call({ name: "gw__echo", arguments: "x" })],
    ["a zero id", call(echo, { id: 0 })],
  ];
  it.each(cases)("answers %s alone exactly as in a batch of one (the SDK transport's answer)", async (_, body, h) => {
    const headers: Record<string, string> = { ...base };
    for (const [k, v] of Object.entries(h ?? {})) v === undefined ? delete headers[k] : (headers[k] = v);
    const alone = await post(s.url, headers, JSON.stringify(body));
    const batch = await post(s.url, headers, JSON.stringify([body]));
    expect(alone).toEqual(batch);
    expect(alone.status).toBeGreaterThan(0);
  });

  it("answers a plain call with the session's headers and the tool's result", async () => {
    const r = await post(s.url, base, JSON.stringify(call(echo)));
    expect(r).toMatchObject({ status: 200, contentType: "application/json", session });
    expect(JSON.parse(r.body)).toEqual({ result: { content: [{ type: "text", text: "hi" }] }, jsonrpc: "2.0", id: 7 });
  });

  it("refuses a repeated Content-Type as the SDK transport does", async () => {
    // Headers as an array are sent as given: Host too must be named.
    const raw = [...Object.entries(base).flat(), "host", new URL(s.url).host];
    const alone = await post(s.url, [...raw, "content-type", "application/json"], JSON.stringify(call(echo)));
    const batch = await post(s.url, [...raw, "content-type", "application/json"], JSON.stringify([call(echo)]));
    expect(alone).toEqual(batch);
    expect(alone.status).toBe(415);
  });

  it("refuses arguments nested deeper than can be sent as a coded tool error, alone and in a batch", async () => {
    // JSON.parse takes any depth; JSON.stringify throws past a few thousand levels.
    for (const depth of [10_000, 50_000]) {
      const nested = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
      const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"gw__echo","arguments":{"text":"hi","deep":${nested}}}}`;
      for (const sent of [body, `[${body}]`]) {
        const r = await post(s.url, base, sent);
        expect(r.status, `${depth} ${sent[0]}`).toBe(200);
        const reply = JSON.parse(r.body) as { result?: { isError?: boolean; content: { text: string }[] } };
        const result = Array.isArray(reply) ? reply[0].result : reply.result;
        expect(result?.isError, `${depth}: ${r.body.slice(0, 200)}`).toBe(true);
        expect(result?.content[0].text).toMatch(/^\[PB_ERR_CONTRACT_ARGS\] mcpConnectors\/gw: /);
      }
    }
    expect(JSON.parse((await post(s.url, base, JSON.stringify(call(echo)))).body).result.content[0].text).toBe("hi");
  });

  it("keeps the checks made before it: token, Host, Origin, session, body size, JSON", async () => {
    const body = JSON.stringify(call(echo));
    expect((await post(s.url, { ...base, authorization: "Bearer wrong" }, body)).status).toBe(403);
    const { authorization: _, ...noToken } = base;
    expect((await post(s.url, noToken, body)).status).toBe(403);
    expect((await post(s.url, { ...base, host: "evil.example.com" }, body)).status).toBe(403);
    expect((await post(s.url, { ...base, origin: "http://evil.example.com" }, body)).status).toBe(403);
    // The same Host and Origin that pass on one request are refused with another on the next.
    expect((await post(s.url, { ...base, origin: `http://${new URL(s.url).host}` }, body)).status).toBe(200);
    expect((await post(s.url, { ...base, origin: "null" }, body)).status).toBe(403);
    const unknown = await post(s.url, { ...base, "mcp-session-id": "no-such-session" }, body);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe(-32001);
    const big = Buffer.concat([Buffer.from(body.slice(0, -1)), Buffer.alloc(10 * 1024 * 1024, 0x20), Buffer.from("}")]);
    expect((await post(s.url, base, big)).status).toBe(413);
    const malformed = await post(s.url, base, `${body.slice(0, 20)}`);
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).error.code).toBe(-32700);
    // After all that, the session still answers.
    expect(JSON.parse((await post(s.url, base, body)).body).result.content[0].text).toBe("hi");
  });
});

describe("serve --http hang-up mid-call", () => {
  it("withdraws the call upstream whether the fast path or the SDK transport took it, and counts it an error", async () => {
    const { file, startFile, cancelFile } = slowpokeConfig("pb-gw-fast-hangup-");
    const serve = await startHttpServe(file);
    const lines = (f: string) => (existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").length : 0);
    try {
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${serve.token}`,
      };
      const init = await post(
        serve.url,
        headers,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hangup", version: "1" } },
        }),
      );
      const h = { ...headers, "mcp-session-id": init.session!, "mcp-protocol-version": "2025-06-18" };
      await post(serve.url, h, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      const slow = call({ name: "slowpoke__slow", arguments: { ms: 30_000 } });
      for (const [k, body] of [slow, [slow]].entries()) {
        const hangup = new AbortController();
        const pending = fetch(serve.url, {
          method: "POST",
          headers: h,
          signal: hangup.signal,
          body: JSON.stringify(body),
        });
        pending.catch(() => undefined);
        await until(() => lines(startFile) === k + 1, 30_000, "the call to reach the upstream server");
        hangup.abort();
        await until(() => lines(cancelFile) === k + 1, 15_000, "the upstream server to record the cancellation");
      }
      const status = (await (
        await fetch(`${serve.base}/status`, { headers: { authorization: `Bearer ${serve.token}` } })
      ).json()) as { instances: { id: string; calls: number; errors: number }[] };
      expect(status.instances.find((i) => i.id === "mcpConnectors/slowpoke")).toMatchObject({ calls: 2, errors: 2 });
    } finally {
      await serve.stop();
    }
  }, 90_000);
});
