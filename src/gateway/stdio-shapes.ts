/**
 * The stdio lane's checks (stdio-lane.ts), with a fast path for the common shapes. The lane runs
 * the SDK's schemas once each (JSONRPCRequestSchema, then CallToolRequestSchema on a tools/call,
 * CallToolResultSchema on its result); even passing, those zod parses cost the gateway process
 * about 25 µs per call on the shared 2-core VM (CPU profile of `serve --mcp` under a sequential
 * client), as much as the rest of the gateway's own work on the call.
 *
 * Each fast path accepts only values the schemas accept AND would hand on unchanged (the same
 * keys and values: nothing stripped, defaulted, converted or reordered in a way anyone reads), so
 * using the value as it is gives what the parse would have given. Anything else (a task, a
 * related-task _meta, a key the schema would strip, an id or progressToken that is not a string
 * or safe integer, "__proto__" as a key, any non-text content) goes to the schemas as before.
 * tests/gateway/stdio-lane.test.ts holds both to the same answers. (plugins/mcp-remote's
 * fast-shapes.ts does the same on the client side; a plugin's code cannot be imported here.)
 */
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  JSONRPCRequestSchema,
  RELATED_TASK_META_KEY,
  type CallToolRequest,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";

type Rec = Record<string, unknown>;

export interface ToolCallRequest {
  id: RequestId;
  params: CallToolRequest["params"];
}

/** JSON.parse's plain object (its "__proto__" is an own key, refused by every key check here). */
function isRecord(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

const isId = (v: unknown): v is RequestId => typeof v === "string" || Number.isSafeInteger(v);

/**
 * `{ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments?, _meta? } }` as the schemas pass it
 * unchanged.
 */
function plainToolCall(v: Rec): ToolCallRequest | null {
  let n = 0;
  for (const k in v) {
    if (k !== "jsonrpc" && k !== "id" && k !== "method" && k !== "params") return null;
    n++;
  }
  if (n !== 4 || v.jsonrpc !== "2.0" || v.method !== "tools/call" || !isId(v.id)) return null;
  const params = v.params;
  if (!isRecord(params) || typeof params.name !== "string") return null;
  for (const k in params) if (k !== "name" && k !== "arguments" && k !== "_meta") return null;
  const args = params.arguments;
  if (args !== undefined && (!isRecord(args) || Object.hasOwn(args, "__proto__"))) return null;
  const meta = params._meta;
  if (meta !== undefined) {
    if (!isRecord(meta) || Object.hasOwn(meta, "__proto__") || Object.hasOwn(meta, RELATED_TASK_META_KEY)) return null;
    if (meta.progressToken !== undefined && !isId(meta.progressToken)) return null;
  }
  return { id: v.id, params: params as CallToolRequest["params"] };
}

/**
 * A tools/call request as the SDK's server would hand it to its handler (JSONRPCRequestSchema,
 * then CallToolRequestSchema), or null when either schema refuses it (the SDK then answers).
 */
export function readToolCall(v: Rec): ToolCallRequest | null {
  const fast = plainToolCall(v);
  if (fast) return fast;
  const message = JSONRPCRequestSchema.safeParse(v);
  if (!message.success) return null;
  const parsed = safeParse(CallToolRequestSchema, message.data);
  return parsed.success ? { id: message.data.id, params: parsed.data.params } : null;
}

/** `{ type: "text", text }` and nothing else: what TextContentSchema passes as it is. */
function isPlainText(v: unknown): boolean {
  if (!isRecord(v) || v.type !== "text" || typeof v.text !== "string") return false;
  for (const k in v) if (k !== "type" && k !== "text") return false;
  return true;
}

/**
 * A CallToolResult the schema would return unchanged: text content, optional structuredContent and isError, no
 * _meta.
 */
function isPlainCallToolResult(v: unknown): boolean {
  if (!isRecord(v) || Object.hasOwn(v, "_meta") || Object.hasOwn(v, "__proto__")) return false;
  const { content, structuredContent, isError } = v;
  if (!Array.isArray(content) || !content.every(isPlainText)) return false;
  if (isError !== undefined && typeof isError !== "boolean") return false;
  if (structuredContent === undefined) return true;
  return isRecord(structuredContent) && !Object.hasOwn(structuredContent, "__proto__");
}

/** A handler's tools/call result as the SDK's server checks it (CallToolResultSchema). */
export function checkToolResult(v: unknown): { success: true; data: unknown } | { success: false; error: unknown } {
  return isPlainCallToolResult(v) ? { success: true, data: v } : safeParse(CallToolResultSchema, v);
}
