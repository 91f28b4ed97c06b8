/**
 * The HTTP gateway's own replies (those the SDK transport does not write): Patchbay errors for
 * the checks before MCP (403 for Host/Origin and the token, 404 paths), JSON-RPC errors for MCP-level refusals, and the
 * JSON-RPC codes generic clients know.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
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

/**
 * A body over MAX_BODY: a JSON-RPC error (what an MCP client reads) that carries the Patchbay code in
 * `data`, as the gateway's other JSON-RPC refusals do. The rest of the body is not kept: Node discards
 * it once the answer is sent (closing the socket instead would reset it under a client still
 * writing, before it could read the answer), within the server's request timeout.
 */
export function bodyTooLarge(res: ServerResponse, what = `a request body is at most ${MAX_BODY} bytes`): void {
  const code: ErrorCode = "PB_ERR_GATEWAY_REQUEST_TOO_LARGE";
  json(res, 413, {
    jsonrpc: "2.0",
    error: { code: -32000, message: `Payload too large: ${what}.`, data: { code, hint: pbError(code, "").hint } },
    id: null,
  });
}

/** Whether the request declares a body over MAX_BODY (refused before a byte of it is read). */
export const declaresTooLarge = (req: IncomingMessage): boolean => Number(req.headers["content-length"]) > MAX_BODY;

/**
 * Node's own answers to a request it could not parse, with a body for the one a client can fix:
 * headers over Node's 16 KiB bound (431) get the Patchbay code, as every other refusal has.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // As Node's own handler: nothing is written where a response has begun on this connection.
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === "ECONNRESET" || !socket.writable || answering) return void socket.destroy();
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT")
    return void socket.end("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n");
  if (err.code !== "HPE_HEADER_OVERFLOW")
    return void socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  const code: ErrorCode = "PB_ERR_GATEWAY_REQUEST_TOO_LARGE";
  const body = JSON.stringify({
    error: { code, message: "Refused: the request's headers are over 16 KiB.", hint: pbError(code, "").hint },
  });
  socket.end(
    `HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
