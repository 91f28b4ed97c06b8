/**
 * `serve --http --stateless`: no sessions. Each POST gets its own SDK server and transport
 * (`sessionIdGenerator: undefined`), so any replica behind a balancer can answer any request and
 * plain round robin works. Nothing can reach a client between its requests, so list_changed,
 * resource subscriptions and the GET notification stream are not offered (GET and DELETE: 405).
 *
 * A reply is plain JSON unless the request asked for progress (a progressToken): a JSON reply
 * has no headers before its answer, so a replica that dies mid-call leaves the balancer nothing
 * sent and the client gets a prompt 502 it can retry, where a broken event stream (which has no
 * resume point here) would leave the call waiting for its timeout. Stateful sessions answer
 * the same way; their requests that ask for progress come here (wantsOwnStream).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Gateway } from "./gateway.js";
import type { Caller } from "./clients/caller.js";
import { bodyTooLarge, json, jsonRpcError, MAX_BODY } from "./http-replies.js";
import { adoptTraceHeader } from "./trace-header.js";

export async function handleStateless(
  gateway: Gateway,
  req: IncomingMessage,
  res: ServerResponse,
  caller: Caller,
): Promise<void> {
  if (req.method !== "POST") {
    res.setHeader("Allow", "POST");
    return jsonRpcError(
      res,
      405,
      -32000,
      "Method not allowed: this gateway is stateless (serve --http --stateless); send each JSON-RPC message as a POST.",
    );
  }
  const parsed = await readJson(req, res);
  if (parsed === undefined) return;
  await answerAlone(gateway, req, res, parsed, caller, null);
}

/**
 * Answers one POST with a server and transport of its own (no session state), in JSON unless it
 * asked for progress. Resolves the function that withdraws it (the client cancelled it).
 */
export async function answerAlone(
  gateway: Gateway,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: unknown,
  caller: Caller,
  session: string | null,
  onStart?: (cancel: () => void) => void,
): Promise<void> {
  const server = gateway.createServer({ stateless: true, caller, session });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !wantsProgress(parsed),
    maxRequestBodySize: MAX_BODY,
  });
  const end = () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  };
  res.once("close", end);
  onStart?.(() => {
    end();
    // The client gave up on it: answer so the request does not stay open.
    if (!res.headersSent)
      json(res, 200, {
        jsonrpc: "2.0",
        error: { code: -32800, message: "Request cancelled by the client." },
        id: (parsed as { id?: unknown }).id ?? null,
      });
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsed);
}

/** Methods that belong to a session's own server (its state: initialization, subscriptions, log level). */
const SESSION_METHODS = new Set(["initialize", "resources/subscribe", "resources/unsubscribe", "logging/setLevel"]);

/**
 * Whether a stateful session's POST needs a server of its own: one request that asked for
 * progress and needs nothing of the session. The session's transport answers in plain JSON (see startHttpGateway),
 * which cannot carry progress notifications; such a request gets its own server and an event stream.
 */
export function wantsOwnStream(body: unknown): body is { id: string | number; method: string } {
  if (!body || typeof body !== "object" || Array.isArray(body)) return false;
  const m = body as { jsonrpc?: unknown; id?: unknown; method?: unknown };
  return (
    m.jsonrpc === "2.0" &&
    (typeof m.id === "string" || typeof m.id === "number") &&
    typeof m.method === "string" &&
    !SESSION_METHODS.has(m.method) &&
    wantsProgress(body)
  );
}

/** The body as JSON; undefined when a 413 or 400 was already answered. */
export async function readJson(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const body = await readBody(req);
  if (body === "too-large") return bodyTooLarge(res);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return jsonRpcError(res, 400, -32700, "Parse error: the body is not JSON.");
  }
  // A client's trace context in its HTTP headers (trace-header.ts); without the header, one lookup.
  if (req.headers.traceparent !== undefined) adoptTraceHeader(req.headers, parsed);
  return parsed;
}

/** True when some request in the body asks for progress notifications, which need an event stream. */
function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => {
    const meta = (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta;
    return meta !== undefined && meta !== null && typeof meta === "object" && meta.progressToken !== undefined;
  });
}

/** The whole body as text, or "too-large" as soon as it passes MAX_BODY (the rest is not buffered). */
function readBody(req: IncomingMessage): Promise<string | "too-large"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_BODY) {
        over = true;
        chunks.length = 0;
        return resolve("too-large");
      }
      chunks.push(chunk);
    });
    req.once("end", () => {
      if (!over) resolve((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString("utf8"));
    });
    req.once("error", reject);
  });
}
