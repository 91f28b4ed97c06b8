// Sessions any replica serves, from the installed package, as docs/deployment.md sets them up:
// two stateful `serve --http` replicas sharing `gateway.state.postgres`. The MCP SDK's client
// opens a session on replica A; replica B then answers tools/list and tools/call for that
// session id with no initialize of its own, refuses an id nobody opened, and a DELETE on B ends
// the session on A too. Needs PATCHBAY_TEST_PG_URL (.ci/postgres.sh); run from the project folder.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const pgUrl = process.env.PATCHBAY_TEST_PG_URL;
if (!pgUrl) throw new Error("PATCHBAY_TEST_PG_URL is not set (.ci/postgres.sh starts PostgreSQL)");
const TOKEN = "pack-install-shared-0123456789abcdef0123";
const bin = path.resolve("node_modules/patchbay-host/bin/patchbay.mjs");
const wired = JSON.parse(readFileSync("connectors.json", "utf8"));

async function freePort() {
  const srv = net.createServer();
  await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** One replica in a folder of its own (a serve keeps its catalog next to its config), as the doc's JSON says. */
async function replica(name) {
  const dir = path.resolve(`replica-${name}`);
  mkdirSync(dir, { recursive: true });
  const config = {
    plugins: ["../plugins"],
    mcpConnectors: wired.mcpConnectors,
    gateway: { state: { postgres: "${PATCHBAY_STATE_URL}" } },
  };
  writeFileSync(path.join(dir, "connectors.json"), JSON.stringify(config, null, 2));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [bin, "serve", "--http", "--port", String(port), "--config", path.join(dir, "connectors.json")],
    { env: { ...process.env, PATCHBAY_TOKEN: TOKEN, PATCHBAY_STATE_URL: pgUrl }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-3000)));
  const url = `http://127.0.0.1:${port}/mcp`;
  for (const until = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`replica ${name} exited ${child.exitCode}:\n${stderr}`);
    const up = await fetch(`http://127.0.0.1:${port}/status`, { headers: { authorization: `Bearer ${TOKEN}` } })
      .then((r) => r.ok)
      .catch(() => false);
    if (up) break;
    if (Date.now() > until) throw new Error(`replica ${name} never answered /status:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child, stderr: () => stderr };
}

/** One JSON-RPC request to `url` on session `id`, as a client that never initialized there sends it. */
async function rpc(url, id, method, params = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": id,
      "mcp-protocol-version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await res.text();
  // A JSON body, or an SSE stream whose data line carries the answer.
  const line = res.headers.get("content-type")?.includes("text/event-stream")
    ? text
        .split("\n")
        .find((l) => l.startsWith("data:"))
        ?.slice(5)
    : text;
  return { status: res.status, body: line ? JSON.parse(line) : null };
}

const a = await replica("a");
const b = await replica("b");
const client = new Client({ name: "pack-install", version: "1.0.0" });
try {
  const transport = new StreamableHTTPClientTransport(new URL(a.url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  const id = transport.sessionId;
  if (!id) throw new Error("replica A gave the SDK client no session id");

  const listed = await rpc(b.url, id, "tools/list");
  const tool = listed.body?.result?.tools?.map((t) => t.name).find((n) => n.endsWith("__echo"));
  if (listed.status !== 200 || !tool)
    throw new Error(`replica B, tools/list on A's session: ${JSON.stringify(listed)}`);
  const called = await rpc(b.url, id, "tools/call", { name: tool, arguments: { text: "from-replica-b" } });
  if (called.status !== 200 || !JSON.stringify(called.body?.result).includes("from-replica-b"))
    throw new Error(`replica B, tools/call on A's session: ${JSON.stringify(called)}`);

  const stranger = await rpc(b.url, "00000000-0000-4000-8000-000000000000", "tools/list");
  if (stranger.status !== 404) throw new Error(`replica B served a session nobody opened: ${JSON.stringify(stranger)}`);

  const ended = await fetch(b.url, {
    method: "DELETE",
    headers: { authorization: `Bearer ${TOKEN}`, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
  });
  if (!ended.ok) throw new Error(`DELETE on replica B: HTTP ${ended.status}`);
  const after = await rpc(a.url, id, "tools/list");
  if (after.status !== 404) throw new Error(`replica A still served a session deleted on B: ${JSON.stringify(after)}`);
  console.log(`shared sessions ok: A's session ${id.slice(0, 8)}… served by B (${tool}), ended on both by B's DELETE`);
} finally {
  await client.close().catch(() => undefined);
  for (const r of [a, b]) r.child.kill("SIGTERM");
}
