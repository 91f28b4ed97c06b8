/**
 * `serve --http --stateless`: no sessions. Each POST gets its own SDK server and transport
 * (`sessionIdGenerator: undefined`), so any replica behind a balancer can answer any request and
 * plain round robin works. Nothing can reach a client between its requests, so list_changed,
 * resource subscriptions and the GET notification stream are not offered (GET and DELETE: 405).
 *
 * A reply is plain JSON unless the request asked for progress (a progressToken): a JSON reply
 * has no headers before its answer, so a replica that dies mid-call leaves the balancer nothing
 * sent and the client gets a prompt 502 it can retry, where a broken event stream (which has no
 * resume point here) would leave the call waiting for its timeout.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Gateway } from "./gateway.js";
import { jsonRpcError, MAX_BODY } from "./http-replies.js";

export async function handleStateless(gateway: Gateway, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== "POST") {
    res.setHeader("Allow", "POST");
    return jsonRpcError(res, 405, -32000, "Method not allowed: this gateway is stateless (serve --http --stateless); send each JSON-RPC message as a POST.");
  }
  const body = await readBody(req);
  if (body === "too-large") return jsonRpcError(res, 413, -32000, `Payload too large: a request body is at most ${MAX_BODY} bytes.`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return jsonRpcError(res, 400, -32700, "Parse error: the body is not JSON.");
  }
  const server = gateway.createServer({ stateless: true });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(parsed), maxRequestBodySize: MAX_BODY });
  res.once("close", () => {
    void transport.close().catch(() => undefined);
    void server.close().catch(() => undefined);
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, parsed);
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
      if (!over) resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.once("error", reject);
  });
}
