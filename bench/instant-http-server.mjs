// The peer bench's ceiling: what its MCP client reaches against a Streamable HTTP server that
// answers every request at once, with no upstream, no SDK server and no checks. Every gateway in
// the bench shares the machine's two cores with that client, whose own cost per call is not
// small (the SDK's transport over fetch: ~450 µs of CPU per call measured here), so a gateway's
// calls/s is bounded by this server's whatever the gateway does; the bench prints both, so that a
// goal is read against the room this machine leaves.
import http from "node:http";

const SESSION = "00000000-0000-4000-8000-000000000000";

function answer(msg) {
  if (msg.method === "initialize")
    return {
      protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "instant", version: "1.0.0" },
    };
  if (msg.method === "tools/call")
    return { content: [{ type: "text", text: `Echo: ${msg.params?.arguments?.message}` }] };
  if (msg.method === "tools/list")
    return { tools: [{ name: "echo", inputSchema: { type: "object", properties: { message: { type: "string" } } } }] };
  return {};
}

const server = http.createServer((req, res) => {
  // No GET stream and no DELETE: the client is told so and carries on without them.
  if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (msg.id === undefined) return void res.writeHead(202).end();
    const body = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: answer(msg) });
    res
      .writeHead(200, {
        "content-type": "application/json",
        "mcp-session-id": SESSION,
        "content-length": Buffer.byteLength(body),
      })
      .end(body);
  });
});
server.listen(Number(process.argv[2]), "127.0.0.1");
