#!/usr/bin/env node
/**
 * The demo MCP server (servers/demo-server.mjs) over Streamable HTTP on 127.0.0.1.
 *
 *   node servers/demo-mcp-http.mjs [PORT] [--stateless]
 *
 * PORT defaults to 0 (any free port). Once listening it prints `LISTENING <port>` on stdout;
 * the endpoint is http://127.0.0.1:<port>/mcp. By default every client gets a session
 * (Mcp-Session-Id); an unknown session id is answered 404, as the MCP spec asks, so a client
 * can tell that the server restarted. `--stateless` serves each request without sessions.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { createDemoServer } from "./demo-server.mjs";

const MAX_BODY_BYTES = 4 * 1024 * 1024;

const args = process.argv.slice(2);
const stateless = args.includes("--stateless");
const portArg = args.find((a) => !a.startsWith("--"));
const port = portArg === undefined ? 0 : Number(portArg);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`usage: demo-mcp-http.mjs [PORT] [--stateless]; PORT must be 0-65535, got ${portArg}\n`);
  process.exit(2);
}

/** @type {Map<string, StreamableHTTPServerTransport>} */
const sessions = new Map();

function sendJsonRpcError(res, status, code, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function handleStateless(req, res, body) {
  if (req.method !== "POST") return sendJsonRpcError(res, 405, -32000, "Method not allowed in stateless mode");
  const server = createDemoServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => {
    transport.close().catch(() => {});
    server.close().catch(() => {});
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

async function handleSession(req, res, body) {
  const header = req.headers["mcp-session-id"];
  const sessionId = Array.isArray(header) ? header[0] : header;
  if (sessionId) {
    const transport = sessions.get(sessionId);
    if (!transport) return sendJsonRpcError(res, 404, -32001, "Session not found");
    return transport.handleRequest(req, res, body);
  }
  if (req.method !== "POST" || !isInitializeRequest(body)) {
    return sendJsonRpcError(res, 400, -32000, "Bad Request: no valid session id; send initialize first");
  }
  const server = createDemoServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessions.set(id, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    server.close().catch(() => {});
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

const http = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found; the MCP endpoint is /mcp\n");
      return;
    }
    let body;
    if (req.method === "POST") {
      const text = await readBody(req);
      try {
        body = JSON.parse(text);
      } catch {
        return sendJsonRpcError(res, 400, -32700, "Parse error");
      }
    }
    await (stateless ? handleStateless(req, res, body) : handleSession(req, res, body));
  } catch (err) {
    process.stderr.write(`demo-mcp-http: ${err instanceof Error ? err.stack : String(err)}\n`);
    if (!res.headersSent) sendJsonRpcError(res, 500, -32603, "Internal server error");
    else res.end();
  }
});

async function shutdown() {
  await Promise.allSettled([...sessions.values()].map((t) => t.close()));
  http.closeAllConnections();
  http.close(() => process.exit(0));
}
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);

http.listen(port, "127.0.0.1", () => {
  const address = http.address();
  process.stdout.write(`LISTENING ${typeof address === "object" && address ? address.port : port}\n`);
});
