/**
 * Reading an HTTP request the gateway got: its path, the ids in its body, where its resource
 * metadata lives (RFC 9728), and the answer to a refused caller.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthRefusal } from "./clients/caller.js";
import { reject } from "./http-replies.js";

export const RESOURCE_METADATA = "/.well-known/oauth-protected-resource";

export function origin(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * This gateway's resource identifier (RFC 8707/9728): its /mcp URL as clients reach it. The Host
 * header passed the Host/Origin check, so it names this server.
 */
export function resourceUrl(req: IncomingMessage, host: string, port: number): string {
  return `${req.headers.host ? `http://${req.headers.host}` : origin(host, port)}/mcp`;
}

/** A refused caller: 403, or in OAuth mode 401 with the challenge that tells an MCP client where to sign in. */
export function refuseCaller(res: ServerResponse, r: AuthRefusal): void {
  if (r.challenge) res.setHeader("www-authenticate", r.challenge);
  if (r.retryAfter) res.setHeader("retry-after", String(r.retryAfter));
  reject(res, r.status, r.code, r.message, r.hint);
}

/**
 * The request target's path as new URL(target, base).pathname gives it. The two paths served are
 * matched as plain strings first (with a query or fragment split off): parsing a URL was ~2% of the
 * gateway's own time on a call. Anything else (dot segments, "//", an absolute URL) is parsed.
 */
export function requestPath(target: string): string {
  const end = target.search(/[?#]/);
  const path = end < 0 ? target : target.slice(0, end);
  if (path === "/mcp" || path === "/status") return path;
  return new URL(target, "http://localhost").pathname;
}

/** The request id a notifications/cancelled names, or null. */
export function cancelledId(body: unknown): string | null {
  const m = body as { method?: unknown; params?: { requestId?: unknown } } | null;
  if (!m || typeof m !== "object" || m.method !== "notifications/cancelled") return null;
  const id = m.params?.requestId;
  return typeof id === "string" || typeof id === "number" ? String(id) : null;
}

/** The ids of the requests in a POST body (a message or a batch). */
export function requestIds(body: unknown): (string | number)[] {
  const ids: (string | number)[] = [];
  for (const m of Array.isArray(body) ? body : [body]) {
    if (!m || typeof m !== "object") continue;
    const { id, method } = m as { id?: unknown; method?: unknown };
    if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) ids.push(id);
  }
  return ids;
}
