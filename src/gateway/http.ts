/**
 * `serve --http`: MCP Streamable HTTP at /mcp and GET /status, behind two checks made before
 * anything else: Host/Origin (origin.ts; 403) and the caller (clients/registry.ts: the operator's
 * token, a client's, or an OAuth access token; refused with nothing read past the headers, 403, or
 * 401 with a challenge in OAuth mode). Every request is authenticated again, so a revoked token is
 * refused at once, in sessions it opened too; a session answers only the caller that opened it.
 * Bodies over MAX_BODY are refused (413) before they are parsed.
 *
 * Two modes. Stateful (the default): a session per client (one SDK transport and server each,
 * http-sessions.ts; a plain tools/call skips the SDK transport, http-session-transport.ts), so
 * the server can reach the client between requests (list_changed, resource subscriptions);
 * behind a balancer, requests must stick to the session's replica.
 * Stateless (--stateless, http-stateless.ts): no sessions, any replica answers any request.
 *
 * serve.ts imports this module only for --http: the SDK's HTTP transport brings @hono/node-server,
 * whose module body reads the global Request, Response and Headers, and that loads undici and
 * Node's web streams: CPU a `serve --mcp` would spend before its client's first call.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { pbError } from "../errors.js";
import type { Gateway } from "./gateway.js";
import { allowedHostnames, hostAndOriginCheck } from "./origin.js";
import {
  answerClientError,
  bodyTooLarge,
  declaresTooLarge,
  json,
  jsonRpcError,
  MAX_BODY,
  reject,
  SESSION_NOT_FOUND,
} from "./http-replies.js";
import { isRefusal, OPERATOR, type AuthRefusal, type Caller } from "./clients/caller.js";
import type { ClientRegistry } from "./clients/registry.js";
import { cancelledId, origin, refuseCaller, requestPath, RESOURCE_METADATA, resourceUrl } from "./http-requests.js";

export { requestPath } from "./http-requests.js";
import { SessionTransport, withdrawOnHangup } from "./http-session-transport.js";
import { sharedSessionHandler } from "./http-shared.js";
import type { SharedSessions } from "./shared-sessions/sessions.js";
import { MAX_SESSIONS, SessionTable } from "./http-sessions.js";
import { answerAlone, handleStateless, readJson, wantsOwnStream } from "./http-stateless.js";

export { MAX_BODY } from "./http-replies.js";

export interface HttpGatewayOptions {
  host: string;
  port: number;
  /** The operator's token and the configured clients. */
  clients: ClientRegistry;
  /** The status document as `caller` may see it (the operator all, a client its own part). */
  status: (caller: Caller) => unknown;
  env?: Record<string, string | undefined>;
  /** No sessions: every request stands alone (see http-stateless.ts). */
  stateless?: boolean;
  /** Sessions kept in gateway.state, served by any replica (http-shared.ts). */
  shared?: SharedSessions;
  /** Paths beside MCP with their own access check (observe-routes.ts: /metrics, the status page). */
  routes?: ExtraRoutes;
  /** Counts each answered request by path and status (metrics.ts). */
  onAnswered?: (path: string, status: number) => void;
}

/**
 * Takes the request (answering it, perhaps later) and returns true, or returns false to let the
 * gateway's own routes answer. Synchronous: /mcp requests pass through it and should not pay an await.
 */
export type ExtraRoutes = (req: IncomingMessage, res: ServerResponse, pathname: string, access: RouteAccess) => boolean;

/** Who may use the routes beside MCP. */
export interface RouteAccess {
  /** The operator's token (the status page shows everything). */
  operator(header: string | undefined): boolean;
  /** The caller the header names, or why not (the /metrics grant is a client's). */
  caller(header: string | undefined): Caller | AuthRefusal | Promise<Caller | AuthRefusal>;
}

export interface HttpGateway {
  url: string;
  port: number;
  mode: "stateful" | "stateless" | "shared";
  /** Open sessions and sessions evicted to make room (always 0 when stateless). */
  sessions(): { open: number; evicted: number };
  close(): Promise<void>;
}

export async function startHttpGateway(gateway: Gateway, opts: HttpGatewayOptions): Promise<HttpGateway> {
  const hostAndOriginDenied = hostAndOriginCheck(allowedHostnames(opts.host, opts.env));
  let port = opts.port;
  const sessions = new SessionTable();
  /** Requests of a session answered alone, by session and request id: the client may cancel them. */
  const alone = new Map<string, () => void>();
  /** Who opened each session: another caller presenting its id is refused. */
  const owners = new Map<string, Caller>();
  const registry = opts.clients;
  const shared = opts.shared ? sharedSessionHandler(gateway, opts.shared) : null;
  const access: RouteAccess = {
    operator: (header) => registry.authenticate(header) === OPERATOR,
    caller: (header) => registry.authenticate(header),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Counted first: a request refused for its Host or Origin (DNS rebinding) is one an operator looks for.
    const pathname = requestPath(req.url ?? "/");
    const onAnswered = opts.onAnswered;
    if (onAnswered) res.once("finish", () => onAnswered(pathname, res.statusCode));
    const denied = hostAndOriginDenied(req.headers.host, req.headers.origin);
    if (denied) return reject(res, 403, "PB_ERR_GATEWAY_HOST_DENIED", `Refused: ${denied}.`);
    // RFC 9728: an MCP client reads where to sign in before it has a token.
    if (pathname.startsWith(RESOURCE_METADATA) && registry.oauth && req.method === "GET")
      return json(res, 200, registry.oauth.resourceMetadata(resourceUrl(req, opts.host, port)));
    if (opts.routes?.(req, res, pathname, access)) return;
    const found = registry.authenticate(req.headers.authorization);
    const verdict = found instanceof Promise ? await found : found;
    if (isRefusal(verdict)) return refuseCaller(res, verdict);
    const caller = verdict;
    if (pathname === "/status" && req.method === "GET") return json(res, 200, opts.status(caller));
    if (pathname !== "/mcp")
      return reject(
        res,
        404,
        "PB_ERR_USAGE",
        `Nothing at ${pathname.slice(0, 100)}: MCP is at /mcp, the status at /status.`,
      );
    // Said here with its code for every mode: the SDK's transport would answer a bare -32000.
    if (declaresTooLarge(req)) return bodyTooLarge(res);
    if (opts.stateless) return handleStateless(gateway, req, res, caller);
    if (shared) return shared(req, res, caller);

    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const transport = sessions.get(sessionId);
      if (!transport)
        return jsonRpcError(
          res,
          404,
          SESSION_NOT_FOUND,
          "Session not found (it ended, was evicted, or its server restarted or is gone): initialize a new one.",
        );
      const owner = owners.get(sessionId);
      if (owner && owner.binding !== caller.binding)
        return reject(
          res,
          403,
          "PB_ERR_SESSION_FORBIDDEN",
          `Refused: this session was opened by another client; client "${caller.id}" may use only sessions it opened.`,
        );
      res.once("close", sessions.enter(sessionId));
      if (req.method !== "POST") return withdrawOnHangup(transport, req, res);
      const parsed = await readJson(req, res);
      if (parsed === undefined) return;
      if (wantsOwnStream(parsed)) {
        // Its progress needs an event stream, which the session's JSON replies cannot carry.
        const slot = `${sessionId}\0${String(parsed.id)}`;
        res.once("close", () => alone.delete(slot));
        return answerAlone(gateway, req, res, parsed, caller, sessionId, (cancel) => alone.set(slot, cancel));
      }
      const cancelled = cancelledId(parsed);
      if (cancelled !== null) alone.get(`${sessionId}\0${cancelled}`)?.();
      return withdrawOnHangup(transport, req, res, parsed);
    }
    if (req.method !== "POST")
      return jsonRpcError(res, 400, -32000, "Bad Request: no mcp-session-id; start with a POST initialize.");
    // Idle sessions give way (oldest first); only sessions all busy refuse a new client.
    const release = await sessions.makeRoom();
    if (!release)
      return jsonRpcError(
        res,
        503,
        -32000,
        `Too many busy sessions (${MAX_SESSIONS}, each with a request open); retry shortly.`,
      );
    // A new session: the transport answers 400 itself when the body is not an initialize request.
    // Its replies are plain JSON, sent whole when the answer is ready: a replica that dies mid-call
    // has sent nothing, so a balancer gives the client a prompt 502 rather than a broken stream
    // (which has no resume point here) that would hold the call until its timeout. One server
    // and transport per session answer all of its requests; only a request that asks for
    // progress gets its own (wantsOwnStream).
    const server = gateway.createServer({ caller });
    const transport: SessionTransport = new SessionTransport(
      {
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id): void => {
          owners.set(id, caller);
          sessions.add(id, transport);
        },
        enableJsonResponse: true,
        maxRequestBodySize: MAX_BODY,
      },
      // The fast path's calls run past the server's Protocol dispatch, on the same handler (tool-call-lane.ts).
      {
        toolCall: (params, extra): Promise<CallToolResult> =>
          gateway.callTool(params, extra, { caller, session: transport.sessionId ?? null }),
        notify: (notification, requestId) => server.notification(notification, { relatedRequestId: requestId }),
      },
    );
    transport.onclose = () => {
      if (transport.sessionId) {
        sessions.delete(transport.sessionId);
        owners.delete(transport.sessionId);
      }
      void server.close().catch(() => undefined);
    };
    try {
      await server.connect(transport);
      await withdrawOnHangup(transport, req, res);
    } finally {
      release();
    }
    if (!transport.sessionId) await server.close().catch(() => undefined);
  }

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, -32603, `Internal error: ${(err as Error).message}`);
      else res.end();
    });
  });

  http.on("clientError", answerClientError);
  // Slow-loris bounds: headers and bodies must arrive in reasonable time.
  http.headersTimeout = 30_000;
  http.requestTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    http.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        pbError("PB_ERR_GATEWAY_LISTEN", `Cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}.`, {
          host: opts.host,
          port: opts.port,
        }),
      ),
    );
    http.listen(opts.port, opts.host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  registry.resourceMetadataUrl = `${origin(opts.host, port)}${RESOURCE_METADATA}/mcp`;
  const shownHost = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shownHost}:${port}/mcp`,
    port,
    mode: opts.stateless ? "stateless" : opts.shared ? "shared" : "stateful",
    sessions: () =>
      opts.shared
        ? { open: opts.shared.size, evicted: opts.shared.evicted }
        : { open: sessions.size, evicted: sessions.evicted },
    async close() {
      await sessions.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
