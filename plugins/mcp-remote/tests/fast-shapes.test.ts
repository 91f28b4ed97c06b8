// The fast paths in front of the SDK's schemas must answer exactly what the schemas answer: the
// same verdict, and for an accepted value the same data. Each case runs through both.
import { expect, it } from "vitest";
import { CallToolResultSchema, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { callToolResultShape, parseMessage } from "../src/fast-shapes.js";

const text = (t: string) => ({ type: "text", text: t });

const results: unknown[] = [
  { content: [text("hi")] },
  { content: [] },
  { content: [text("a"), text("b")], isError: true },
  { content: [text("a")], isError: false, structuredContent: { count: 3, nested: { a: [1] } } },
  { content: [text("a")], extra: "kept by the loose schema" },
  // Each of these leaves the fast path; the schema decides.
  {},
  { content: [text("a")], _meta: { progressToken: 1 } },
  { content: [{ type: "text", text: "a", annotations: { priority: 0.5 } }] },
  { content: [{ type: "text", text: "a", stray: 1 }] },
  { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
  { content: [{ type: "text", text: 5 }] },
  { content: [text("a")], isError: "yes" },
  { content: [text("a")], structuredContent: [1, 2] },
  { content: [text("a")], structuredContent: null },
  { content: "not an array" },
  JSON.parse('{"content":[{"type":"text","text":"a"}],"__proto__":{"polluted":true}}'),
  JSON.parse('{"content":[{"type":"text","text":"a"}],"structuredContent":{"__proto__":{"x":1}}}'),
  null,
  [],
  "text",
];

it("the tools/call result check answers as CallToolResultSchema does", () => {
  for (const value of results) {
    const fast = callToolResultShape.safeParse(structuredClone(value));
    const schema = CallToolResultSchema.safeParse(structuredClone(value));
    expect(fast.success, JSON.stringify(value)).toBe(schema.success);
    if (schema.success) expect(fast.data, JSON.stringify(value)).toStrictEqual(schema.data);
  }
});

const lines = [
  '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}',
  '{"jsonrpc":"2.0","id":"abc","result":{}}',
  '{"result":{"x":[1,2,{"y":null}]},"id":7,"jsonrpc":"2.0"}',
  // Off the fast path: the schema decides (accepts, or throws its own error).
  '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"progressToken":3}}}',
  '{"jsonrpc":"2.0","id":1.5,"result":{}}',
  '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
  '{"jsonrpc":"2.0","id":null,"result":{}}',
  '{"jsonrpc":"1.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"result":{},"extra":1}',
  '{"jsonrpc":"2.0","id":1,"result":[]}',
  '{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"polluted":true}}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}',
  '{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{}}',
  '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}',
  '{"jsonrpc":"2.0"}',
  "[1,2]",
  "42",
];

it("each line a server writes is read as the SDK's deserializeMessage reads it", () => {
  for (const line of lines) {
    let expected: { ok: true; value: unknown } | { ok: false; error: string };
    try {
      expected = { ok: true, value: JSONRPCMessageSchema.parse(JSON.parse(line)) };
    } catch (err) {
      expected = { ok: false, error: (err as Error).constructor.name };
    }
    if (expected.ok) expect(parseMessage(line), line).toStrictEqual(expected.value);
    else expect(() => parseMessage(line), line).toThrow();
  }
  expect(() => parseMessage("not json")).toThrow(SyntaxError);
});
