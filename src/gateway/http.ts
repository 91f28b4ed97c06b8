/**
 * `serve --http`: MCP Streamable HTTP at /mcp (one SDK transport and server per session) and
 * GET /status, behind two checks made before anything else: Host/Origin (origin.ts; 403) and
 * the bearer token (401 with nothing read past the headers). Bodies over MAX_BODY are refused by
 * the SDK transport (413) before they are parsed.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { AsyncLocalStorage } from "node:async_hooks";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { pbError, type ErrorCode } from "../errors.js";
import type { Gateway } from "./gateway.js";
import { allowedHostnames, checkHostAndOrigin } from "./origin.js";
import { bearerMatches } from "./state-dir.js";

/** Sessions one server holds at most: a client that opens sessions in a loop cannot exhaust memory. */
const MAX_SESSIONS = 256;
/** A session no request touched for this long is closed (clients that vanish never send DELETE). */
const SESSION_IDLE_MS = 30 * 60_000;
/** Request bodies above this are refused with 413 (a JSON-RPC message is rarely a fraction of it). */
export const MAX_BODY = 4 * 1024 * 1024;

export interface HttpGatewayOptions {
  host: string;
  port: number;
  token: string;
  status: () => unknown;
  env?: Record<string, string | undefined>;
}

export interface HttpGateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startHttpGateway(gateway: Gateway, opts: HttpGatewayOptions): Promise<HttpGateway> {
  const allowed = allowedHostnames(opts.host, opts.env);
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const lastSeen = new Map<string, number>();
  /** Open requests per session: a client holding its GET stream open for notifications is not idle. */
  const open = new Map<string, number>();
  const sweep = setInterval(() => {
    for (const [id, t] of sessions) {
      if ((open.get(id) ?? 0) === 0 && Date.now() - (lastSeen.get(id) ?? 0) > SESSION_IDLE_MS) void t.close().catch(() => undefined);
    }
  }, 60_000);
  sweep.unref();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    const denied = checkHostAndOrigin(req.headers.host, req.headers.origin, allowed);
    if (denied) return reject(res, 403, "PB_ERR_GATEWAY_HOST_DENIED", `Refused: ${denied}.`);
    if (!bearerMatches(req.headers.authorization, opts.token)) {
      // Say which in the header too (RFC 6750): an OAuth-minded client may show only that, not the body.
      const why = req.headers.authorization ? "the bearer token does not match this server's token" : "no Authorization: Bearer token was sent";
      res.setHeader("WWW-Authenticate", `Bearer realm="patchbay", error="invalid_token", error_description="Patchbay: ${why}; use PATCHBAY_TOKEN or .patchbay/token"`);
      return reject(res, 401, "PB_ERR_GATEWAY_UNAUTHORIZED", `Refused: ${why}. A valid Authorization: Bearer token is required.`);
    }
    if (url.pathname === "/status" && req.method === "GET") return json(res, 200, opts.status());
    if (url.pathname !== "/mcp") return reject(res, 404, "PB_ERR_USAGE", `Nothing at ${url.pathname.slice(0, 100)}: MCP is at /mcp, the status at /status.`);

    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = sessions.get(sessionId);
      if (!transport) return jsonRpcError(res, 404, "Session not found (it ended, or the server restarted): initialize a new one.");
      lastSeen.set(sessionId, Date.now());
      open.set(sessionId, (open.get(sessionId) ?? 0) + 1);
      res.once("close", () => {
        if (!sessions.has(sessionId)) return;
        open.set(sessionId, (open.get(sessionId) ?? 1) - 1);
        lastSeen.set(sessionId, Date.now());
      });
      return withdrawOnHangup(transport, req, res);
    }
    if (req.method !== "POST") return jsonRpcError(res, 400, "Bad Request: no mcp-session-id; start with a POST initialize.");
    if (sessions.size >= MAX_SESSIONS) return jsonRpcError(res, 503, `Too many open sessions (${MAX_SESSIONS}); close one (DELETE /mcp) and retry.`);
    // A new session: the transport answers 400 itself when the body is not an initialize request.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        lastSeen.set(id, Date.now());
      },
      maxRequestBodySize: MAX_BODY,
    });
    const server = gateway.createServer();
    transport.onclose = () => {
      if (transport.sessionId) for (const m of [sessions, lastSeen, open]) m.delete(transport.sessionId);
      void server.close().catch(() => undefined);
    };
    await server.connect(transport);
    noteRequests(transport);
    await withdrawOnHangup(transport, req, res);
    if (!transport.sessionId) await server.close().catch(() => undefined);
  }

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, `Internal error: ${(err as Error).message}`);
      else res.end();
    });
  });
  // Slow-loris bounds: headers and bodies must arrive in reasonable time.
  http.headersTimeout = 30_000;
  http.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    http.once("error", (err: NodeJS.ErrnoException) => reject(pbError("PB_ERR_GATEWAY_LISTEN", `Cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}.`, { host: opts.host, port: opts.port })));
    http.listen(opts.port, opts.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const shownHost = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The JSON-RPC requests that arrived with the HTTP request being handled (its async context). */
const arriving = new AsyncLocalStorage<Set<string | number>>();
const deliver = new WeakMap<StreamableHTTPServerTransport, (msg: JSONRPCMessage) => void>();

/** Records which requests each POST carried, so a hang-up can withdraw them. */
function noteRequests(transport: StreamableHTTPServerTransport): void {
  const onmessage = transport.onmessage;
  if (!onmessage) return;
  deliver.set(transport, (msg) => onmessage.call(transport, msg));
  transport.onmessage = (msg, extra) => {
    if ("method" in msg && "id" in msg) arriving.getStore()?.add(msg.id);
    onmessage.call(transport, msg, extra);
  };
}

/**
 * A client that closes its response stream before the answers were written has gone: its calls
 * are withdrawn as if it had sent notifications/cancelled (the plugin's ctx.signal aborts, and
 * mcp-remote cancels upstream), not left to run on and count as successes.
 */
async function withdrawOnHangup(transport: StreamableHTTPServerTransport, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const ids = new Set<string | number>();
  res.once("close", () => {
    if (res.writableFinished || ids.size === 0) return;
    const send = deliver.get(transport);
    for (const requestId of ids) send?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "the client closed its connection" } });
  });
  await arriving.run(ids, () => transport.handleRequest(req, res));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function reject(res: ServerResponse, status: number, code: ErrorCode, message: string): void {
  const err = pbError(code, message);
  json(res, status, { error: { code, message, hint: err.hint } });
}

function jsonRpcError(res: ServerResponse, status: number, message: string): void {
  json(res, status, { jsonrpc: "2.0", error: { code: -32000, message }, id: null });
}
