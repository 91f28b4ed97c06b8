// First call: how long a client waits from spawning Patchbay to its first successful tools/call,
// the wait every desktop AI client pays on every start. Over stdio (`serve --mcp`) both with the
// last boot's catalog (.patchbay/catalog.json: the head start answers initialize and tools/list
// from it) and without it (a first start, or an edited config), against the same boot over HTTP
// (`serve --http`) and a direct SDK client spawning the server itself: the floor. Interleaved round
// by round, so every side sees the same machine load. Needs `npm run build`.
// Goals: with the catalog ≤ the HTTP figure, and ≤ 2× direct.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { oneServerConfig } from "./connectors.mjs";
import { figure, median } from "./figures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const ROUNDS = Number(process.env.BENCH_FIRST_CALL_ROUNDS ?? 5);
const TOKEN = "bench-token-0123456789abcdef0123456789";
// The server the and the peer bench's figures are of (bench/peers.mjs): a real one's start.
const everything = path.join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const bin = path.join(root, "bin", "patchbay.mjs");
const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };

/** Calls `tool` until it succeeds (a gateway may answer isError while its instance boots). */
async function untilSuccess(client, tool) {
  for (;;) {
    const r = await client.callTool({ name: tool, arguments: { message: "hi" } });
    if (!r.isError) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Milliseconds from spawning `args` as a stdio MCP server to the first successful call of `tool`. */
async function overStdio(args, tool) {
  const t = performance.now();
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, env, stderr: "ignore" }));
  await untilSuccess(client, tool);
  const ms = performance.now() - t;
  await client.close();
  return ms;
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** The same for `serve --http`: connects (retrying while the port is not open yet), then calls. */
async function overHttp(config, tool) {
  const port = await freePort();
  const t = performance.now();
  const child = spawn(process.execPath, [bin, "serve", "--http", "--port", String(port), "--config", config], {
    env: { ...env, PATCHBAY_TOKEN: TOKEN },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-2000)));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    for (const until = t + 60_000; performance.now() < until && child.exitCode === null; ) {
      const client = new Client({ name: "bench", version: "1.0.0" });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
          }),
        );
        await untilSuccess(client, tool);
        const ms = performance.now() - t;
        await client.close();
        return ms;
      } catch {
        await client.close().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    throw new Error(`serve --http: no successful tools/call\n${stderr}`);
  } finally {
    child.kill();
    await exited;
  }
}

// Each Patchbay side in a folder of its own: a serve keeps its catalog next to its config.
const stdioDir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-first-"));
const httpDir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-first-http-"));
const stdioConfig = oneServerConfig(stdioDir, "everything", process.execPath, [everything, "stdio"]);
const httpConfig = oneServerConfig(httpDir, "everything", process.execPath, [everything, "stdio"]);
const serveArgs = [bin, "serve", "--mcp", "--config", stdioConfig];
const catalogFile = path.join(stdioDir, ".patchbay", "catalog.json");
try {
  // One start leaves the catalog (and pins the tools) the "with the catalog" rounds start from,
  // and warms the compile cache and the file cache for every side alike.
  await overStdio(serveArgs, "everything__echo");
  await overHttp(httpConfig, "everything__echo");
  if (!existsSync(catalogFile)) throw new Error("serve --mcp left no .patchbay/catalog.json");
  const catalog = readFileSync(catalogFile);
  const direct = [];
  const cached = [];
  const uncached = [];
  const http = [];
  for (let i = 0; i < ROUNDS; i++) {
    direct.push(await overStdio([everything, "stdio"], "echo"));
    writeFileSync(catalogFile, catalog);
    cached.push(await overStdio(serveArgs, "everything__echo"));
    rmSync(catalogFile, { force: true });
    uncached.push(await overStdio(serveArgs, "everything__echo"));
    http.push(await overHttp(httpConfig, "everything__echo"));
  }
  const ms = (xs) => `${median(xs).toFixed(0)} ms`;
  console.log(
    `\nFirst call: spawn → first successful tools/call (median of ${ROUNDS})\n` +
      `direct SDK client ${ms(direct)}; serve --mcp with the catalog ${ms(cached)} [${cached.map((x) => x.toFixed(0)).join(", ")}], ` +
      `without ${ms(uncached)}; serve --http ${ms(http)}`,
  );
  figure(
    "stdio first tools/call, catalog kept (× serve --http's)",
    median(cached) / median(http),
    1,
    "×",
    `${ms(cached)} vs ${ms(http)}`,
  );
  figure("stdio first tools/call, catalog kept (× direct SDK client)", median(cached) / median(direct), 2, "×");
  figure(
    "stdio first tools/call, catalog kept (× first start, no catalog)",
    median(cached) / median(uncached),
    Infinity,
    "×",
    `${ms(cached)} vs ${ms(uncached)}`,
  );
  figure("stdio first tools/call, first start (× direct SDK client)", median(uncached) / median(direct), Infinity, "×");
} finally {
  rmSync(stdioDir, { recursive: true, force: true });
  rmSync(httpDir, { recursive: true, force: true });
}
