/**
 * The SDK's checks of what a server sends, with a fast path for the common shapes. Every message
 * a server sends is checked with the SDK's zod schemas (JSONRPCMessageSchema for each line,
 * CallToolResultSchema for a tools/call result): on a tools/call that returns a line of text,
 * those two parses were the largest share of mcp-remote's own time per call.
 *
 * Each fast path accepts only values the schema accepts AND would return unchanged (same keys,
 * same values: nothing stripped, defaulted or converted), so returning the value as it is gives
 * what the parse would have given. Anything else (a request, a notification, an error, _meta,
 * a content block other than plain text, a key the schema would strip) goes to the schema as
 * before. tests/fast-shapes.test.ts holds both to the same answers.
 */
import { CallToolResultSchema, JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

type Rec = Record<string, unknown>;

function isRecord(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

/** Exactly these own keys (JSON.parse makes "__proto__" an own key: it is not in any list here). */
function hasExactly(v: Rec, a: string, b: string, c?: string): boolean {
  let n = 0;
  for (const k in v) {
    if (k !== a && k !== b && k !== c) return false;
    n++;
  }
  return n === (c === undefined ? 2 : 3);
}

/** `{ jsonrpc: "2.0", id, result: {...} }` with no _meta: what JSONRPCResultResponseSchema passes as it is. */
function isPlainResultResponse(v: unknown): boolean {
  if (!isRecord(v) || v.jsonrpc !== "2.0" || !hasExactly(v, "jsonrpc", "id", "result")) return false;
  const id = v.id;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  return isRecord(v.result) && !Object.hasOwn(v.result, "_meta") && !Object.hasOwn(v.result, "__proto__");
}

/** One line a server wrote, as the SDK's deserializeMessage reads it (throws what it throws). */
export function parseMessage(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return isPlainResultResponse(value) ? (value as JSONRPCMessage) : JSONRPCMessageSchema.parse(value);
}

/** `{ type: "text", text }` and nothing else: what TextContentSchema passes as it is. */
function isPlainText(v: unknown): boolean {
  return isRecord(v) && v.type === "text" && typeof v.text === "string" && hasExactly(v, "type", "text");
}

/** A CallToolResult the schema would return unchanged: text content, optional structuredContent and isError, no _meta. */
function isPlainCallToolResult(v: unknown): boolean {
  if (!isRecord(v) || Object.hasOwn(v, "_meta") || Object.hasOwn(v, "__proto__")) return false;
  const { content, structuredContent, isError } = v;
  if (!Array.isArray(content) || !content.every(isPlainText)) return false;
  if (isError !== undefined && typeof isError !== "boolean") return false;
  if (structuredContent === undefined) return true;
  return isRecord(structuredContent) && !Object.hasOwn(structuredContent, "__proto__");
}

/**
 * CallToolResultSchema with the fast path in front, as the SDK's request() takes a result schema:
 * an object with safeParse (no `_zod`, so the SDK calls its safeParse rather than zod's).
 */
export const callToolResultShape = {
  safeParse(value: unknown): { success: true; data: unknown } | ReturnType<typeof CallToolResultSchema.safeParse> {
    return isPlainCallToolResult(value) ? { success: true, data: value } : CallToolResultSchema.safeParse(value);
  },
} as unknown as typeof CallToolResultSchema;
