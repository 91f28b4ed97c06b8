/**
 * A Patchbay failure as the JSON-RPC error a client gets (resources, prompts, subscriptions, and
 * a client's refusals): apart so the client checks and the passthrough share it without a circle.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { toWire } from "../errors.js";

/** JSON-RPC codes of a client's refusals: server-defined, apart from the SDK's own -32000 and -32001. */
export const RPC_CLIENT_FORBIDDEN = -32003;
export const RPC_CLIENT_QUOTA = -32004;

const RPC_CODES: Partial<Record<string, number>> = {
  PB_ERR_UNSUPPORTED: ErrorCode.MethodNotFound,
  PB_ERR_CLIENT_FORBIDDEN: RPC_CLIENT_FORBIDDEN,
  PB_ERR_CLIENT_QUOTA: RPC_CLIENT_QUOTA,
};

/**
 * Errors made into client answers here. The SDK's McpError puts "MCP error <code>: " before its
 * message, which the server then sends as the message (and a client's SDK adds its own again);
 * an answer's message is to start with its PB_ERR_* code, or be the upstream's as it sent it, so
 * the message is set again after construction.
 */
const answers = new WeakSet<object>();

function answer(code: number, message: string, data: Record<string, unknown>): McpError {
  const err = new McpError(code, message, data);
  err.message = message;
  answers.add(err);
  return err;
}

/** A Patchbay failure as a JSON-RPC error: the code first in the text, code and hint in data. */
export function protocolError(err: unknown, rpcCode?: number, extra: Record<string, unknown> = {}): McpError {
  // Already a client's answer (a refusal made at the gate, an upstream's error passed on):
  // converting it again would turn its code into -32603.
  if ((err instanceof McpError || answers.has(err as object)) && rpcCode === undefined) return err as McpError;
  const w = toWire(err);
  // The upstream server's own JSON-RPC error: its code and message, as it sent them.
  if (w.code === "PB_ERR_UPSTREAM_RPC" && typeof w.data.rpcCode === "number")
    return answer(w.data.rpcCode, String(w.data.rpcMessage ?? w.message), { code: w.code, hint: w.hint });
  // A feature the upstream lacks reads to a client like a method it lacks.
  const code = rpcCode ?? RPC_CODES[w.code] ?? ErrorCode.InternalError;
  // A client's refusal names the client (its own id: never another's) for programs to read.
  const client = typeof w.data.client === "string" ? { client: w.data.client } : {};
  return answer(code, `[${w.code}] ${w.message}`, { code: w.code, hint: w.hint, ...client, ...extra });
}
