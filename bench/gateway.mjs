// Gateway benchmark: a tools/call through `patchbay serve --mcp` (stdio → the gateway →
// the boundary → mcp-remote → an MCP server on stdio) against a direct SDK client → the same
// server, interleaved in the same run, with mcp-remote in its default worker thread and with
// "isolation": "host" (on the host's own thread, the opt-in the goal is measured on); gateway
// calls/s with 64 calls in flight; a proxy that only forwards, as the floor any stdio gateway
// stands on (the extra process hop, which varies with the machine), and the same proxy with a
// worker-thread hop (the floor of the default thread isolation); and how soon a spawned
// `serve --mcp` answers `initialize` against a bare SDK stdio server. Needs `npm run build`.
// Goals: a call with "isolation": "host" ≤ 2x a direct client's and ≤ 1.1x the proxy's; with the
// default thread isolation ≤ 1.5x the proxy's; initialize ≤ 1.5x the bare server's.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createHost } from "../dist/index.js";
import { oneServerConfig } from "./connectors.mjs";
import { figure, median } from "./figures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SEQ = Number(process.env.BENCH_GATEWAY_SEQ ?? 1000);
const ROUNDS = 5;
const IN_FLIGHT = 64;
const server = path.join(root, "servers", "demo-mcp.mjs");
const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };

async function connect(command, args, tool) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, env, stderr: "ignore" }));
  return { call: () => client.callTool({ name: tool, arguments: { text: "hi" } }), close: () => client.close() };
}

async function sequential(peer, n) {
  for (let i = 0; i < 100; i++) await peer.call();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await peer.call();
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
}

async function perSecond(peer, n) {
  const t = process.hrtime.bigint();
  let started = 0;
  const lane = async () => {
    while (started++ < n) await peer.call();
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return n / (Number(process.hrtime.bigint() - t) / 1e9);
}

// The hops alone, with no MCP or Patchbay code: one round trip over a pipe to a child process (what
// stdio costs) and one over a MessagePort to a worker thread (what the boundary costs). The
// gateway path makes two pipe round trips and one thread round trip where the direct path makes
// one pipe round trip, so (direct + pipe + thread) / direct is the ratio the hops alone impose.
function echoHops() {
  const child = spawn(process.execPath, ["-e", "process.stdin.on('data', (d) => process.stdout.write(d))"], {
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  const thread = new Worker(
    "require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m))",
    { eval: true },
  );
  const pipe = async () => {
    child.stdin.write("x\n");
    await once(child.stdout, "data");
  };
  const port = async () => {
    thread.postMessage(0);
    await once(thread, "message");
  };
  return {
    pipe: { call: pipe },
    thread: { call: port },
    close: async () => {
      child.kill();
      await thread.terminate();
    },
  };
}

/** Milliseconds from spawning a stdio MCP server to its answer to `initialize`. */
async function initializeMs(args) {
  const t = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "ignore"] });
  const request = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } };
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: request })}\n`);
  let out = "";
  for await (const chunk of child.stdout) {
    out += chunk;
    if (out.includes('"id":1')) break;
  }
  const ms = performance.now() - t;
  child.stdin.end();
  child.kill();
  await once(child, "exit").catch(() => undefined);
  if (!out.includes('"result"')) throw new Error(`${args.join(" ")}: no initialize result: ${out.slice(0, 300)}`);
  return ms;
}

const dir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-gw-"));
const config = oneServerConfig(dir, "demo", "node", [server]);
// The same server behind "isolation": "host", in a folder of its own (a serve keeps its state next to its config).
const hostDir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-gw-host-"));
const hostConfig = oneServerConfig(hostDir, "demo", "node", [server], "host");
const direct = await connect(process.execPath, [server], "echo");
// Attribution: the same path without the gateway (an embedder's host.call → boundary → mcp-remote → server).
const host = await createHost({ config, logLevel: "silent" });
const embedded = { call: () => host.mcp("demo").call("echo", { text: "hi" }), close: () => host.close() };
const onHostThread = await createHost({ config: hostConfig, logLevel: "silent" });
const embeddedHost = {
  call: () => onHostThread.mcp("demo").call("echo", { text: "hi" }),
  close: () => onHostThread.close(),
};
const gateway = await connect(
  process.execPath,
  [path.join(root, "bin", "patchbay.mjs"), "serve", "--mcp", "--config", config],
  "demo__echo",
);
const gatewayHost = await connect(
  process.execPath,
  [path.join(root, "bin", "patchbay.mjs"), "serve", "--mcp", "--config", hostConfig],
  "demo__echo",
);
// The floor: a proxy that only forwards (bench/forward-proxy.mjs), one process hop like the gateway's.
const forward = await connect(
  process.execPath,
  [path.join(root, "bench", "forward-proxy.mjs"), "demo__", process.execPath, server],
  "demo__echo",
);
// The floor of the default thread isolation: the same proxy with the server's pipes in a worker thread.
const forwardThread = await connect(
  process.execPath,
  [path.join(root, "bench", "forward-proxy.mjs"), "--thread", "demo__", process.execPath, server],
  "demo__echo",
);
const hops = echoHops();
try {
  const d = [];
  const g = [];
  const gh = [];
  const dr = [];
  const gr = [];
  const ghr = [];
  const e = [];
  const eh = [];
  const hp = [];
  const ht = [];
  const fw = [];
  const ft = [];
  for (let i = 0; i < ROUNDS; i++) {
    // interleaved, so both see the same machine load
    d.push(await sequential(direct, SEQ));
    g.push(await sequential(gateway, SEQ));
    gh.push(await sequential(gatewayHost, SEQ));
    fw.push(await sequential(forward, SEQ));
    ft.push(await sequential(forwardThread, SEQ));
    e.push(await sequential(embedded, SEQ));
    eh.push(await sequential(embeddedHost, SEQ));
    hp.push(await sequential(hops.pipe, SEQ));
    ht.push(await sequential(hops.thread, SEQ));
    dr.push(await perSecond(direct, SEQ * 2));
    gr.push(await perSecond(gateway, SEQ * 2));
    ghr.push(await perSecond(gatewayHost, SEQ * 2));
  }
  console.log(
    "\nGateway: tools/call over stdio through `patchbay serve --mcp` → mcp-remote → MCP server, vs a direct SDK client → same server\n",
  );
  console.log(
    `sequential:        direct ${median(d).toFixed(1)} µs/call; gateway, mcp-remote in a worker thread (default) ${median(g).toFixed(1)} µs/call = ${(median(g) / median(d)).toFixed(2)}x; with "isolation": "host" ${median(gh).toFixed(1)} µs/call = ${(median(gh) / median(d)).toFixed(2)}x (goal ≤ 2x)`,
  );
  console.log(
    `floor:             a proxy that only forwards ${median(fw).toFixed(1)} µs/call = ${(median(fw) / median(d)).toFixed(2)}x direct; "isolation": "host" is ${(median(gh) / median(fw)).toFixed(2)}x that proxy (${(median(gh) - median(fw)).toFixed(1)} µs/call of Patchbay's own work)`,
  );
  console.log(
    `  thread:          the proxy with a worker-thread hop ${median(ft).toFixed(1)} µs/call = ${(median(ft) / median(fw)).toFixed(2)}x the proxy; the default thread isolation is ${(median(g) / median(fw)).toFixed(2)}x the proxy, ${(median(g) / median(ft)).toFixed(2)}x the one with the hop (${(median(g) - median(ft)).toFixed(1)} µs/call of Patchbay's own work)`,
  );
  console.log(
    `attribution:       host.call (boundary + mcp-remote, no gateway) ${median(e).toFixed(1)} µs/call = ${(median(e) / median(d)).toFixed(2)}x direct; the gateway itself adds ${(median(g) - median(e)).toFixed(1)} µs/call`,
  );
  console.log(
    `  "isolation": "host": host.call ${median(eh).toFixed(1)} µs/call = ${(median(eh) / median(d)).toFixed(2)}x direct; the gateway itself adds ${(median(gh) - median(eh)).toFixed(1)} µs/call`,
  );
  console.log(
    `hops alone:        pipe round trip ${median(hp).toFixed(1)} µs, thread round trip ${median(ht).toFixed(1)} µs; they alone make the gateway path ${((median(d) + median(hp) + median(ht)) / median(d)).toFixed(2)}x direct (2 pipe + 1 thread round trips vs 1 pipe)`,
  );
  console.log(
    `${IN_FLIGHT} in flight:      direct ${median(dr).toFixed(0)} calls/s, gateway ${median(gr).toFixed(0)} calls/s (thread), ${median(ghr).toFixed(0)} calls/s ("isolation": "host")`,
  );
  figure(
    'stdio tools/call via serve --mcp, mcp-remote "isolation": "host" (× direct SDK client)',
    median(gh) / median(d),
    2,
    "×",
  );
  figure(
    "stdio tools/call via a proxy that only forwards (× direct SDK client)",
    median(fw) / median(d),
    Infinity,
    "×",
  );
  figure(
    'stdio tools/call via serve --mcp, "isolation": "host" (× a proxy that only forwards)',
    median(gh) / median(fw),
    1.1,
    "×",
  );
  figure(
    "stdio tools/call via serve --mcp, default thread isolation (× a proxy that only forwards)",
    median(g) / median(fw),
    1.5,
    "×",
  );
  figure(
    "stdio tools/call via a proxy with a worker-thread hop (× a proxy that only forwards)",
    median(ft) / median(fw),
    Infinity,
    "×",
    "(the floor of the line above: the thread hop alone)",
  );
  figure(
    "stdio tools/call via serve --mcp, mcp-remote in its default worker thread (× direct SDK client)",
    median(g) / median(d),
    Infinity,
    "×",
  );
  figure("stdio calls/s with 64 in flight (direct ÷ serve --mcp, thread)", median(dr) / median(gr), Infinity, "×");
  figure(
    'stdio calls/s with 64 in flight (direct ÷ serve --mcp, "isolation": "host")',
    median(dr) / median(ghr),
    Infinity,
    "×",
  );
  // `patchbay call` while this serve runs: it goes through the serve's control socket, no boot.
  const wall = (args) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    if (r.status !== 0) throw new Error(`${args.join(" ")} exited ${r.status}: ${String(r.stderr).slice(0, 300)}`);
    return performance.now() - t;
  };
  const floor = [];
  const call = [];
  for (let i = 0; i < ROUNDS; i++) {
    floor.push(wall(["-e", "0"]));
    call.push(
      wall([
        path.join(root, "bin", "patchbay.mjs"),
        "call",
        "mcpConnectors/demo",
        "call",
        '"echo"',
        '{"text":"hi"}',
        "--config",
        config,
      ]),
    );
  }
  console.log(
    `patchbay call with a serve up: ${median(call).toFixed(0)} ms wall vs node -e 0 ${median(floor).toFixed(0)} ms = ${(median(call) / median(floor)).toFixed(2)}x`,
  );
  figure("patchbay call with a serve up (× node -e 0)", median(call) / median(floor), Infinity, "×");

  // initialize: a client spawning `serve --mcp` (with the last boot's catalog, and with none: a
  // first start or an edited config) against one spawning a bare SDK server, interleaved.
  const serveArgs = [path.join(root, "bin", "patchbay.mjs"), "serve", "--mcp", "--config", config];
  const catalogFile = path.join(dir, ".patchbay", "catalog.json");
  const catalog = readFileSync(catalogFile); // saved by the serve measured above
  const bare = [];
  const warm = [];
  const cold = [];
  for (let i = 0; i < Math.max(ROUNDS, 7); i++) {
    bare.push(await initializeMs([path.join(root, "bench", "bare-sdk-server.mjs")]));
    writeFileSync(catalogFile, catalog);
    warm.push(await initializeMs(serveArgs));
    rmSync(catalogFile, { force: true });
    cold.push(await initializeMs(serveArgs));
  }
  console.log(
    `initialize:        bare SDK server ${median(bare).toFixed(0)} ms, serve --mcp ${median(warm).toFixed(0)} ms with the last boot's catalog, ${median(cold).toFixed(0)} ms without`,
  );
  figure("stdio initialize, catalog kept (× bare SDK server)", median(warm) / median(bare), 1.5, "×");
  figure("stdio initialize, first start (× bare SDK server)", median(cold) / median(bare), 1.5, "×");
} finally {
  await direct.close();
  await gateway.close();
  await gatewayHost.close();
  await forward.close();
  await forwardThread.close();
  await embedded.close();
  await embeddedHost.close();
  await hops.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(hostDir, { recursive: true, force: true });
}
