/**
 * `serve --http` with gateway.state.postgres: stateful sessions that any replica serves
 * (shared-sessions/sessions.ts), so a balancer may send each request anywhere (plain round
 * robin) and a replica's death ends no session. The checks are those of the one-process
 * stateful mode (http.ts): a session answers only the caller that opened it, an unknown one is
 * a 404 the client re-initializes on; in addition, a session's state that cannot be read (the
 * database away) is a 503 the client may retry, never a 404 that would make it start over.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "./clients/caller.js";
import type { Gateway } from "./gateway.js";
import { bodyTooLarge, jsonRpcError, reject, SESSION_NOT_FOUND } from "./http-replies.js";
import { cancelledId } from "./http-requests.js";
import { withdrawOnHangup } from "./http-session-transport.js";
import { answerAlone, readJson, wantsOwnStream } from "./http-stateless.js";
// The bound's values from copy.ts, not sessions.ts: that one loads the store and with it pg, which a
// gateway without gateway.state never loads (serve's start, stdio's above all).
import { MAX_COPIES, SessionsBusy, type SharedCopy } from "./shared-sessions/copy.js";
import type { SharedSessions } from "./shared-sessions/sessions.js";

/**
 * An initialize's params are stored with its session and replayed on every replica that serves it;
 * far above what a client sends.
 */
const MAX_INIT_BYTES = 64 * 1024;

export function sharedSessionHandler(
  gateway: Gateway,
  sessions: SharedSessions,
): (req: IncomingMessage, res: ServerResponse, caller: Caller) => Promise<void> {
  /** Requests answered alone, by session and request id: the client may cancel them. */
  const alone = new Map<string, () => void>();
  sessions.onCancelled = (session, requestId) => alone.get(`${session}\0${requestId}`)?.();

  async function onSession(req: IncomingMessage, res: ServerResponse, caller: Caller, id: string): Promise<void> {
    let found: SharedCopy | null | "forbidden";
    try {
      found = await sessions.session(id, caller);
    } catch (err) {
      if (err instanceof SessionsBusy) return busy(res);
      return unavailable(res, sessions.describe(err));
    }
    if (found === null)
      return jsonRpcError(
        res,
        404,
        SESSION_NOT_FOUND,
        "Session not found (it ended or expired): initialize a new one.",
      );
    if (found === "forbidden")
      return reject(
        res,
        403,
        "PB_ERR_SESSION_FORBIDDEN",
        `Refused: this session was opened by another client; client "${caller.id}" may use only sessions it opened.`,
      );
    const copy = found;
    res.once("close", sessions.enter(copy));
    if (req.method === "GET") {
      if (!req.headers.accept?.includes("text/event-stream"))
        return jsonRpcError(res, 406, -32000, "Not Acceptable: a GET stream must accept text/event-stream.");
      const opened = await sessions
        .stream(copy, req, res)
        .catch((err: unknown) => unavailable(res, sessions.describe(err)));
      if (opened === false && !res.headersSent)
        return jsonRpcError(res, 400, -32000, "Bad Request: Last-Event-ID is not an event id of this session.");
      return;
    }
    if (req.method === "DELETE") {
      await sessions.end(copy.id).catch((err: unknown) => unavailable(res, sessions.describe(err)));
      if (!res.headersSent) res.writeHead(200).end();
      return;
    }
    if (req.method !== "POST") {
      res.setHeader("Allow", "GET, POST, DELETE");
      return jsonRpcError(res, 405, -32000, "Method not allowed.");
    }
    const parsed = await readJson(req, res);
    if (parsed === undefined) return;
    if (isInitializeRequest(parsed))
      return jsonRpcError(res, 400, -32600, "Invalid Request: this session is initialized already.");
    if (wantsOwnStream(parsed)) {
      // Its progress needs an event stream, which the session's JSON replies cannot carry.
      const slot = `${copy.id}\0${String(parsed.id)}`;
      res.once("close", () => alone.delete(slot));
      return answerAlone(gateway, req, res, parsed, caller, copy.id, (cancel) => alone.set(slot, cancel));
    }
    const cancelled = cancelledId(parsed);
    if (cancelled !== null) {
      alone.get(`${copy.id}\0${cancelled}`)?.();
      // The call may run on another replica (the request went there): every replica is told.
      sessions.cancel(copy, (parsed as { params: { requestId: string | number } }).params.requestId);
    }
    return withdrawOnHangup(copy.transport, req, res, parsed);
  }

  return async (req, res, caller) => {
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") return onSession(req, res, caller, id);
    if (req.method !== "POST")
      return jsonRpcError(res, 400, -32000, "Bad Request: no mcp-session-id; start with a POST initialize.");
    const parsed = await readJson(req, res);
    if (parsed === undefined) return;
    if (!isInitializeRequest(parsed))
      return jsonRpcError(res, 400, -32000, "Bad Request: no mcp-session-id; start with a POST initialize.");
    if (Buffer.byteLength(JSON.stringify(parsed.params ?? {})) > MAX_INIT_BYTES)
      return bodyTooLarge(
        res,
        `with shared sessions, an initialize request's params are at most ${MAX_INIT_BYTES} bytes (they are kept with the session)`,
      );
    let copy: SharedCopy;
    try {
      copy = await sessions.create(caller, parsed.params as Record<string, unknown>);
    } catch (err) {
      if (err instanceof SessionsBusy) return busy(res);
      return unavailable(res, sessions.describe(err));
    }
    res.once("finish", () => {
      if (res.statusCode !== 200) void sessions.end(copy.id).catch(() => undefined);
    });
    res.once("close", sessions.enter(copy));
    await withdrawOnHangup(copy.transport, req, res, parsed);
  };
}

/** This replica keeps no more busy copies; another replica may have room, so the client retries (anywhere). */
function busy(res: ServerResponse): void {
  res.setHeader("Retry-After", "1");
  jsonRpcError(
    res,
    503,
    -32000,
    `Too many busy sessions on this replica (${MAX_COPIES}, each with a request, GET stream or subscription open); retry shortly.`,
  );
}

/** The session's state could not be read or written: worth a retry, never a reason to start over. */
function unavailable(res: ServerResponse, why: string): void {
  if (res.headersSent) return void res.end();
  res.setHeader("Retry-After", "1");
  reject(
    res,
    503,
    "PB_ERR_STATE_UNAVAILABLE",
    `gateway.state.postgres: the session could not be served (${why}); retry shortly.`,
  );
}
