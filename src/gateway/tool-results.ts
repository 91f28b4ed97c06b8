/**
 * How a tools/call result reads to the gateway: its outcome label (for metrics and the audit), its
 * size, and a Patchbay failure turned into the MCP tool error a client gets.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toWire } from "../errors.js";

/** A result's outcome label: ok, tool_error, or its PB_ERR_* code. */
export function outcomeOf(result: CallToolResult): string {
  // An upstream's own result passes through with its _meta: only a well-formed code is a code.
  const code = (result._meta?.["patchbay/error"] as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^PB_ERR_[A-Z_]{1,60}$/.test(code) ? code : result.isError ? "tool_error" : "ok";
}

export function jsonBytes(value: unknown): number {
  return jsonSize(value) ?? 0;
}

/**
 * `value`'s size as JSON, or null when it cannot be serialized: JSON.parse takes any depth, but
 * JSON.stringify throws (RangeError) past a few thousand levels, which a 25 KB body reaches.
 */
export function jsonSize(value: unknown): number | null {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "");
  } catch {
    return null;
  }
}

/** A Patchbay failure as an MCP tool error: the code first, then what happened and what to do. */
export function toolError(err: unknown): CallToolResult {
  const wire = toWire(err);
  return {
    isError: true,
    content: [{ type: "text", text: `[${wire.code}] ${wire.message}\n${wire.hint}` }],
    _meta: { "patchbay/error": { code: wire.code, hint: wire.hint } },
  };
}

export function isToolResult(v: unknown): v is CallToolResult {
  return !!v && typeof v === "object" && Array.isArray((v as { content?: unknown }).content);
}

export const clip = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);
