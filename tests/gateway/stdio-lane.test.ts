// The stdio lane (src/gateway/stdio-lane.ts, stdio-shapes.ts) must answer exactly as the SDK's
// StdioServerTransport and Server do: the same script of lines goes to a real SDK Server over
// each transport, with the same tools/call handler, and both must write the same messages and
// hand the handler the same params. The fast shape checks must agree with the schemas they skip.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  JSONRPCMessageSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolCallExtra } from "../../src/gateway/lane-types.js";
import { StdioLaneTransport } from "../../src/gateway/stdio-lane.js";
import { checkToolResult, readToolCall } from "../../src/gateway/stdio-shapes.js";

const call = (id: unknown, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

/** Lines a client may send: the common shape, each way off the fast path, and what the SDK refuses. */
const callLines = [
  call(1, { name: "echo", arguments: { text: "hi" } }),
  call("s-1", { name: "echo" }),
  call(2, { name: "echo", arguments: {} }),
  call(3, { name: "echo", arguments: { nested: { a: [1, null, "x"] } }, _meta: { progressToken: "p" } }),
  call(4, { name: "echo", _meta: { progressToken: 7, "patchbay/idempotency-key": "k", other: { x: 1 } } }),
  '{"params":{"arguments":{"b":1,"a":2},"name":"echo"},"id":5,"method":"tools/call","jsonrpc":"2.0"}',
  // Off the fast path; the schemas decide.
  call(6, { name: "echo", arguments: { text: "hi" }, stray: "stripped by the schema" }),
  call(7, { name: "echo", _meta: { progressToken: 1.5 } }),
  call(8, { name: "echo", _meta: { progressToken: null } }),
  call(9, { name: "echo", _meta: [] }),
  call(10, { name: "echo", arguments: [] }),
  call(11, { name: "echo", arguments: null }),
  call(12, { name: 42 }),
  call(13, {}),
  call(14, null),
  call(15.5, { name: "echo" }),
  '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"echo"}}',
  '{"jsonrpc":"2.0","id":16,"method":"tools/call"}',
  '{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo"},"extra":1}',
  '{"jsonrpc":"1.0","id":18,"method":"tools/call","params":{"name":"echo"}}',
  '{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"x":1}}}}',
  '{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"echo","_meta":{"__proto__":{"x":1}}}}',
  '{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"echo","__proto__":{"x":1}}}',
  call(22, { name: "echo", task: { ttl: 1000 } }),
  call(23, { name: "echo", _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } }),
  call(null, { name: "echo" }),
  '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}',
];

describe("stdio lane: the fast shape checks", () => {
  it("reads each tools/call line as JSONRPCMessageSchema and CallToolRequestSchema do", () => {
    for (const line of callLines) {
      let expected: { id: unknown; params: unknown } | null = null;
      try {
        const message = JSONRPCMessageSchema.parse(JSON.parse(line));
        if ("method" in message && "id" in message) {
          const parsed = CallToolRequestSchema.safeParse(message);
          if (parsed.success) expected = { id: message.id, params: parsed.data.params };
        }
      } catch {
        expected = null;
      }
      const got = readToolCall(JSON.parse(line));
      expect(got, line).toStrictEqual(expected);
    }
  });

  it("checks a handler's result as CallToolResultSchema does", () => {
    const text = (t: string) => ({ type: "text", text: t });
    const results: unknown[] = [
      { content: [text("hi")] },
      { content: [] },
      { content: [text("a"), text("b")], isError: true },
      { content: [text("a")], isError: false, structuredContent: { count: 3, nested: { a: [1] } } },
      { content: [text("a")], extra: "kept by the loose schema" },
      {},
      { content: [text("a")], _meta: { "patchbay/error": { code: "PB_ERR_X" } } },
      { content: [{ type: "text", text: "a", annotations: { priority: 0.5 } }] },
      { content: [{ type: "text", text: "a", stray: 1 }] },
      { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
      { content: [{ type: "text", text: 5 }] },
      { content: [text("a")], isError: "yes" },
      { content: [text("a")], structuredContent: [1, 2] },
      { content: "not an array" },
      JSON.parse('{"content":[{"type":"text","text":"a"}],"__proto__":{"polluted":true}}'),
      JSON.parse('{"content":[{"type":"text","text":"a"}],"structuredContent":{"__proto__":{"x":1}}}'),
      null,
      "text",
    ];
    for (const value of results) {
      const fast = checkToolResult(structuredClone(value));
      const schema = CallToolResultSchema.safeParse(structuredClone(value));
      expect(fast.success, JSON.stringify(value)).toBe(schema.success);
      if (schema.success && fast.success) expect(fast.data, JSON.stringify(value)).toStrictEqual(schema.data);
    }
  });
});

interface Run {
  out: Record<string, unknown>[];
  seen: unknown[];
  aborted: string[];
  errors: number;
  closed: boolean;
}

/** One SDK Server over the given transport kind, fed `lines` (each a chunk, or split as given); resolves when quiet. */
async function run(kind: "sdk" | "lane", chunks: (string | Buffer)[], waitFor: (r: Run) => boolean): Promise<Run> {
  const input = new PassThrough();
  const output = new PassThrough();
  const r: Run = { out: [], seen: [], aborted: [], errors: 0, closed: false };
  let text = "";
  output.on("data", (d: Buffer) => {
    text += d.toString("utf8");
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
      r.out.push(JSON.parse(text.slice(0, nl)) as Record<string, unknown>);
      text = text.slice(nl + 1);
    }
  });
  const server = new Server({ name: "t", version: "1" }, { capabilities: { tools: {} } });
  const handler = async (params: CallToolRequest["params"], extra: ToolCallExtra): Promise<CallToolResult> => {
    r.seen.push(params);
    switch (params.name) {
      case "throw":
        throw new McpError(-32099, "upstream said no", { why: "because" });
      case "throw-plain":
        throw new Error("plain failure");
      case "bad-result":
        return { content: "nope" } as never;
      case "rich-result":
        return { content: [{ type: "text", text: "x", annotations: { priority: 1 } }], _meta: { a: 1 } };
      case "progress":
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: params._meta?.progressToken ?? 0, progress: 1, total: 2 },
        });
        return { content: [{ type: "text", text: "done" }] };
      case "wait":
        await new Promise<void>((resolve) =>
          extra.signal.aborted ? resolve() : extra.signal.addEventListener("abort", () => resolve(), { once: true }),
        );
        r.aborted.push(String(extra.signal.reason));
        return { content: [{ type: "text", text: "too late" }] };
      default: {
        // What the gateway reads of params, in a fixed order (zod reorders params' own keys; the
        // order inside arguments, which goes upstream, is compared as it is).
        const { name, arguments: args, _meta } = params;
        return { content: [{ type: "text", text: JSON.stringify({ name, args, _meta }) }] };
      }
    }
  };
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => handler(req.params, extra));
  const transport =
    kind === "sdk"
      ? new StdioServerTransport(input, output, { maxBufferSize: 64 * 1024 })
      : new StdioLaneTransport(input, output, {
          maxLineBytes: 64 * 1024,
          toolCall: handler,
          notify: (n, id) => server.notification(n, { relatedRequestId: id }),
        });
  server.onerror = () => r.errors++;
  server.onclose = () => (r.closed = true);
  await server.connect(transport);
  for (const c of chunks) input.write(c);
  for (let i = 0; i < 400 && !waitFor(r); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 20));
  await server.close();
  return r;
}

const init = JSON.stringify({
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
/** JSON with sorted keys: an order for comparing lists whose own order may differ. */
const canon = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );
const byId = (a: unknown, b: unknown) => canon(a).localeCompare(canon(b));

describe("stdio lane: answers as the SDK's transport and server do", () => {
  it("the same responses, errors and notifications for every line, and the same params to the handler", async () => {
    const script = [
      init,
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      ...callLines,
      call(30, { name: "throw" }),
      call(31, { name: "throw-plain" }),
      call(32, { name: "bad-result" }),
      call(33, { name: "rich-result" }),
      call(34, { name: "progress", _meta: { progressToken: "tok" } }),
      "{this is not json",
      '{"jsonrpc":"2.0","id":35,"method":"no/such/method"}',
      "[1,2]",
      '{"jsonrpc":"2.0","id":36,"method":"ping"}\r',
    ].map((l) => `${l}\n`);
    const done = (r: Run) => r.out.some((m) => m.id === 36) && r.out.some((m) => m.id === 34);
    const sdk = await run("sdk", script, done);
    const lane = await run("lane", script, done);
    expect(sdk.out.length).toBeGreaterThan(20);
    expect([...lane.out].sort(byId)).toStrictEqual([...sdk.out].sort(byId));
    // The lane starts a call at once, the SDK a few microtasks later: the same calls, maybe in another order.
    expect([...lane.seen].sort(byId)).toStrictEqual([...sdk.seen].sort(byId));
    expect(lane.errors).toBe(sdk.errors);
  });

  it("a cancelled call is aborted with its reason and not answered; close aborts what still runs", async () => {
    const script = [
      init,
      call(1, { name: "wait" }),
      call(2, { name: "wait" }),
      call(0, { name: "wait" }),
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "user" } }),
      // Like the SDK's Protocol, a requestId of 0 cancels nothing.
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0, reason: "zero" } }),
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "notifications/cancelled", params: { requestId: 2 } }),
      call(4, { name: "echo" }),
    ].map((l) => `${l}\n`);
    const done = (r: Run) => r.out.some((m) => m.id === 4) && r.aborted.length > 0;
    const sdk = await run("sdk", script, done);
    const lane = await run("lane", script, done);
    expect([...lane.out].sort(byId)).toStrictEqual([...sdk.out].sort(byId));
    expect(sdk.out.some((m) => m.id === 1)).toBe(false);
    // "user" by the notification; the other two when the server closed (the client went away).
    expect(lane.aborted.sort()).toStrictEqual(sdk.aborted.sort());
    expect(sdk.aborted).toContain("user");
    expect(sdk.aborted).toHaveLength(3);
  });

  it("frames lines split across chunks, several in one chunk, and a character split between chunks", async () => {
    const big = call(1, { name: "echo", arguments: { text: `é${"x".repeat(40_000)}ü` } });
    const bytes = Buffer.from(`${init}\n${big}\n${call(2, { name: "echo", arguments: { t: "ö" } })}\n`);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 997) chunks.push(bytes.subarray(i, i + 997));
    const done = (r: Run) => r.out.some((m) => m.id === 2);
    const sdk = await run("sdk", chunks, done);
    const lane = await run("lane", chunks, done);
    expect([...lane.out].sort(byId)).toStrictEqual([...sdk.out].sort(byId));
    expect(lane.seen).toStrictEqual(sdk.seen);
  });

  it("a line over the limit ends the connection, as the SDK's does", async () => {
    const long = `${call(1, { name: "echo", arguments: { text: "x".repeat(70 * 1024) } })}\n`;
    const chunks = [`${init}\n`, long.slice(0, 40_000), long.slice(40_000)];
    const sdk = await run("sdk", chunks, (r) => r.closed);
    const lane = await run("lane", chunks, (r) => r.closed);
    expect(sdk.closed).toBe(true);
    expect(lane.closed).toBe(true);
    expect(lane.errors).toBe(sdk.errors);
    expect(lane.out).toStrictEqual(sdk.out);
  });
});

describe("stdio lane: the controllers it reuses", () => {
  it("a signal goes to a later call only when nothing of its last call can hear it", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const answers: Record<string, unknown>[] = [];
    let text = "";
    output.on("data", (d: Buffer) => {
      text += d.toString("utf8");
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
        answers.push(JSON.parse(text.slice(0, nl)) as Record<string, unknown>);
        text = text.slice(nl + 1);
      }
    });
    const signals: AbortSignal[] = [];
    const heard: string[] = [];
    const transport = new StdioLaneTransport(input, output, {
      maxLineBytes: 1 << 20,
      toolCall: async (params, extra) => {
        signals.push(extra.signal);
        if (params.name === "leave-a-listener") extra.signal.addEventListener("abort", () => heard.push("stale"));
        if (params.name === "wait") {
          await new Promise<void>((resolve) => extra.signal.addEventListener("abort", () => resolve(), { once: true }));
          heard.push("wait");
        }
        return { content: [] };
      },
    });
    transport.onmessage = () => undefined;
    await transport.start();
    const answered = async (id: number) => {
      for (let i = 0; i < 400 && !answers.some((a) => a.id === id); i++) await new Promise((r) => setTimeout(r, 5));
    };
    input.write(`${call(1, { name: "plain" })}\n`);
    await answered(1);
    input.write(`${call(2, { name: "plain" })}\n`);
    await answered(2);
    // A finished call's signal serves the next one...
    expect(signals[1]).toBe(signals[0]);
    input.write(`${call(3, { name: "leave-a-listener" })}\n`);
    await answered(3);
    input.write(`${call(4, { name: "wait" })}\n`);
    for (let i = 0; i < 400 && signals.length < 4; i++) await new Promise((r) => setTimeout(r, 5));
    // ...but not one that still has a listener of its call: cancelling call 4 must not reach call 3's.
    expect(signals[3]).not.toBe(signals[2]);
    input.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } })}\n`);
    for (let i = 0; i < 400 && !heard.includes("wait"); i++) await new Promise((r) => setTimeout(r, 5));
    expect(heard).toEqual(["wait"]);
    await transport.close();
  });
});
