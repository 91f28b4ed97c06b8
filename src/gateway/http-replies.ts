/**
 * The HTTP gateway's own replies (those the SDK transport does not write): Patchbay errors for
 * the checks before MCP (403 for Host/Origin and the token, 404 paths), JSON-RPC errors for MCP-level refusals, and the
 * JSON-RPC codes generic clients know.
 */
import type { ServerResponse } from "node:http";
import { pbError, type ErrorCode } from "../errors.js";

/** Request bodies above this are refused with 413 (a JSON-RPC message is rarely a fraction of it). */
export const MAX_BODY = 4 * 1024 * 1024;

/**
 * The code the MCP SDK itself answers an unknown Mcp-Session-Id with (HTTP 404): the session
 * ended, was evicted, or lived on a replica that is gone. The client re-initializes.
 */
export const SESSION_NOT_FOUND = -32001;

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** An error body with its code's hint, or `hint` where the code's general one would point elsewhere. */
export function reject(res: ServerResponse, status: number, code: ErrorCode, message: string, hint?: string): void {
  const err = pbError(code, message, {}, hint);
  json(res, status, { error: { code, message, hint: err.hint } });
}

export function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  json(res, status, { jsonrpc: "2.0", error: { code, message }, id: null });
}
