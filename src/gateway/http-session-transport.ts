/**
 * A stateful HTTP session's transport: the SDK's StreamableHTTPServerTransport, plus a fast path
 * for the one request clients send most, a plain `tools/call`. The SDK transport converts every
 * request to a web Request and its reply back (through @hono/node-server), and checks the body
 * against its JSON-RPC schemas again after the gateway has already parsed it: together most of the
 * HTTP layer's cost per call. A plain tools/call on an established session is instead run here
 * (on the lane, tool-call-lane.ts, when the transport was given one: the gateway's handler, past
 * the SDK server's Protocol dispatch and its zod checks; else by the session's SDK server) and its
 * JSON reply written straight to the node:http response.
 *
 * The fast path only takes requests the SDK transport would take too (plainToolCall is narrower
 * than its checks), so it refuses nothing of its own: anything else (another method, a batch, an
 * unusual header, a shape the SDK might refuse) goes to the SDK transport, which answers it, refusals
 * included, as before. The checks made before either path (Host/Origin, token, session id, body
 * size, JSON) are http.ts's and are the same for both. The reply is the SDK's to the byte: status
 * 200, content-type application/json, mcp-session-id, the JSON-RPC response as JSON.stringify writes
 * it. What decides the answer (the checks of the params, the handler, cancellation, result
 * validation) is the SDK server's, or the lane's copy of it, which answers the same
 * (tests/gateway/http-session-transport.test.ts and http-fast.test.ts hold them to the same bytes).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolCallLane, type ToolCallLaneOptions } from "./tool-call-lane.js";
import { requestIds } from "./http-requests.js";

/** A session kept in gateway.state: its notifications go there, for whichever replica holds its stream. */
export interface SharedTransportOptions {
  id: string;
  /** Stores and announces a notification of the session (shared-sessions/event-store.ts). */
  publish(message: JSONRPCMessage): Promise<unknown>;
  /** The client set its log level (logging/setLevel): the other replicas' copies must follow. */
  onLevel(level: string): void;
}

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
/** The id of the initialize request replayed to a copy of a shared session (its answer goes nowhere). */
const REPLAYED = "patchbay/replayed-initialize";

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const RELATED_TASK = "io.modelcontextprotocol/related-task";

export class SessionTransport implements Transport {
  readonly sdk: StreamableHTTPServerTransport;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Fast-path requests awaiting their answer, by JSON-RPC id. */
  private readonly waiting = new Map<RequestId, ServerResponse>();
  /** Runs a fast-path call past the SDK server's Protocol dispatch (tool-call-lane.ts); absent: the server runs it. */
  private readonly lane?: ToolCallLane;
  /**
   * The severity below which log notifications are not sent (logging/setLevel). Kept here: the SDK
   * server files the level under the request's session id but checks it under none, so over HTTP
   * it would send every level.
   */
  private minLevel = 0;

  constructor(
    opts: ConstructorParameters<typeof StreamableHTTPServerTransport>[0],
    lane?: ToolCallLaneOptions,
    private readonly shared?: SharedTransportOptions,
  ) {
    this.sdk = new StreamableHTTPServerTransport(opts);
    if (lane)
      this.lane = new ToolCallLane(
        lane,
        (message) => this.send(message),
        (error) => this.onerror?.(error),
      );
    this.sdk.onmessage = (message, extra) => {
      this.lane?.see(message);
      this.seeLevel(message);
      this.onmessage?.(message, extra);
    };
    this.sdk.onclose = () => {
      this.lane?.close();
      this.onclose?.();
    };
    this.sdk.onerror = (error) => this.onerror?.(error);
  }

  get sessionId(): string | undefined {
    return this.shared?.id ?? this.sdk.sessionId;
  }

  /** The client's log level, as set on another replica's copy of this session. */
  setLevel(level: string): void {
    const i = LEVELS.indexOf(level);
    if (i >= 0) this.minLevel = i;
  }

  /**
   * Makes this copy of a shared session what the session is: its server answers the initialize
   * request the client sent to the replica that opened it (the answer goes nowhere), and the log
   * level it set since.
   */
  replayInitialize(init: Record<string, unknown>, level: string | null): void {
    // The SDK transport has no public way to take up a session begun elsewhere; its own initialize
    // handling sets exactly these two fields (tests/gateway/shared-sessions*.test.ts fail if that changes).
    const web = (this.sdk as unknown as { _webStandardTransport?: { sessionId?: string; _initialized?: boolean } })
      ._webStandardTransport;
    if (web?._initialized !== false) throw new Error("the MCP SDK transport changed: cannot adopt a session");
    web!.sessionId = this.shared?.id;
    web!._initialized = true;
    this.onmessage?.({ jsonrpc: "2.0", id: REPLAYED, method: "initialize", params: init } as JSONRPCMessage);
    this.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" });
    if (level) this.setLevel(level);
  }

  start(): Promise<void> {
    return this.sdk.start();
  }

  close(): Promise<void> {
    return this.sdk.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id = "id" in message && !("method" in message) ? message.id : options?.relatedRequestId;
    if (id === REPLAYED) return;
    if (id === undefined && !this.wanted(message)) return;
    // A shared session's own notifications go to gateway.state, for the replica holding its stream.
    if (id === undefined && this.shared) return void (await this.shared.publish(message));
    const res = id === undefined ? undefined : this.waiting.get(id);
    if (!res) return this.sdk.send(message, options);
    // A notification about a fast-path request has nowhere to go (a JSON reply carries only the
    // answer), as with the SDK transport's JSON replies; the answer ends the request.
    if (!("id" in message) || "method" in message) return;
    this.waiting.delete(id as RequestId);
    const body = JSON.stringify(message);
    res
      .writeHead(200, {
        "content-type": "application/json",
        "mcp-session-id": this.sessionId ?? "",
        "content-length": Buffer.byteLength(body),
      })
      .end(body);
  }

  /** A message handed to the session's server as if the client had sent it (a withdrawal). */
  deliver(message: JSONRPCMessage): void {
    this.lane?.see(message);
    this.onmessage?.(message);
  }

  /** False for a log notification below the client's level. */
  wanted(message: JSONRPCMessage): boolean {
    if (!("method" in message) || message.method !== "notifications/message") return true;
    const level = (message.params as { level?: unknown } | undefined)?.level;
    return typeof level !== "string" || LEVELS.indexOf(level) >= this.minLevel;
  }

  private seeLevel(message: JSONRPCMessage): void {
    if (!("method" in message) || message.method !== "logging/setLevel" || !("id" in message)) return;
    const level = (message.params as { level?: unknown } | undefined)?.level;
    if (typeof level !== "string" || !LEVELS.includes(level)) return;
    this.setLevel(level);
    this.shared?.onLevel(level);
  }

  /** The SDK transport's handling of a request (all but the fast path). */
  handleRequest(req: IncomingMessage, res: ServerResponse, parsed?: unknown): Promise<void> {
    return this.sdk.handleRequest(req, res, parsed);
  }

  /**
   * Takes a POST whose body is a plain tools/call (see plainToolCall) and answers it; false when
   * it is not one, and the SDK transport must answer it.
   */
  answersFast(req: IncomingMessage, res: ServerResponse, body: unknown): boolean {
    if (!this.onmessage || !plainToolCall(req, body) || this.waiting.has(body.id)) return false;
    this.waiting.set(body.id, res);
    res.once("close", () => {
      if (this.waiting.get(body.id) === res) this.waiting.delete(body.id);
    });
    if (this.lane?.run(body)) return true;
    // What the SDK transport tells the server about the request: its headers and full URL.
    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    this.onmessage(body, { requestInfo: { headers: req.headers, url } });
    return true;
  }
}

/**
 * A POST the SDK transport would pass to its server unchanged, with a JSON reply: a single
 * JSON-RPC tools/call request, exactly the keys a request may have, an integer or string id, no
 * progress token (those get an event stream), no task, and the headers the SDK transport requires
 * (Accept both JSON and event streams, one Content-Type of exactly application/json, a supported
 * protocol version if one is named).
 */
export function plainToolCall(req: IncomingMessage, body: unknown): body is JSONRPCRequest {
  if (!isRecord(body)) return false;
  for (const key in body) if (!REQUEST_KEYS.has(key)) return false;
  if (body.jsonrpc !== "2.0" || body.method !== "tools/call") return false;
  const id = body.id;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  const params = body.params;
  if (!isRecord(params) || params.task !== undefined) return false;
  const meta = params._meta;
  if (meta !== undefined && (!isRecord(meta) || meta.progressToken !== undefined || meta[RELATED_TASK] !== undefined))
    return false;
  const h = req.headers;
  const accept = h.accept;
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return false;
  if (h["content-type"]?.toLowerCase() !== "application/json" || !oneContentType(req.rawHeaders)) return false;
  const version = h["mcp-protocol-version"];
  return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version as string);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * node:http keeps only the first of repeated Content-Type headers; the SDK's web Request joins them (and refuses
 * the result).
 */
function oneContentType(raw: string[]): boolean {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 12 && raw[i].toLowerCase() === "content-type") n++;
  return n === 1;
}

/**
 * A client that closes its response stream before the answers were written has gone: its calls
 * are withdrawn as if it had sent notifications/cancelled (the plugin's ctx.signal aborts, and
 * mcp-remote cancels upstream), not left to run on and count as successes. The ids come from the
 * body already parsed here (not from an AsyncLocalStorage around the transport: on Node 20 that
 * turns on promise hooks for the whole process, a cost on every await of every call).
 */
export async function withdrawOnHangup(
  transport: SessionTransport,
  req: IncomingMessage,
  res: ServerResponse,
  parsed?: unknown,
): Promise<void> {
  const ids = parsed === undefined ? [] : requestIds(parsed);
  if (ids.length > 0)
    res.once("close", () => {
      if (res.writableFinished) return;
      for (const requestId of ids)
        transport.deliver({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId, reason: "the client closed its connection" },
        });
    });
  // A plain tools/call is answered without the SDK transport's web Request layer (http-session-transport.ts).
  if (parsed !== undefined && transport.answersFast(req, res, parsed)) return;
  await transport.handleRequest(req, res, parsed);
}
