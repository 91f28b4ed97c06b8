// Patchbay's gateway against the MCP proxies users pick instead, in the same run, interleaved:
// mcp-proxy and supergateway (installed for the bench only, outside the project, by
// bench/peer-install.mjs), each fronting the same server-everything over stdio and serving it
// over Streamable HTTP on 127.0.0.1, against `patchbay serve --http` fronting it through
// mcp-remote. Every client is the MCP SDK's Streamable HTTP client.
//
// Figures: cold start (spawn → first successful tools/call), sequential tools/call p50, calls/s
// with 64 in flight, and the gateway's resident memory (its own processes, the upstream server
// excluded: every peer runs the same one). supergateway runs with --stateful: its default
// (stateless) spawns a new server for every POST, which no one would measure a call against.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { oneServerConfig } from "./connectors.mjs";
import { ensurePeers } from "./peer-install.mjs";
import { figure, median, percentile } from "./figures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
// The SDK client's fetch leaves an abort listener per request until the request is collected;
// thousands of calls on one client trip Node's leak warning (for every peer alike). Noise here.
process.removeAllListeners("warning");
process.on("warning", (w) => w.name !== "MaxListenersExceededWarning" && console.error(w));
const ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 5);
const SEQ = Number(process.env.BENCH_PEER_SEQ ?? 400);
const IN_FLIGHT = 64;
const everything = path.join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const TOKEN = "bench-token-0123456789abcdef0123456789";

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** `serve --http` on a one-server config of its own folder (a serve keeps its state next to it). */
function patchbaySpec(name, dir, isolation) {
  mkdirSync(dir, { recursive: true });
  const config = oneServerConfig(dir, "everything", process.execPath, [everything, "stdio"], isolation);
  return {
    name,
    tool: "everything__echo",
    headers: { authorization: `Bearer ${TOKEN}` },
    argv: (port) => [
      path.join(root, "bin", "patchbay.mjs"),
      "serve",
      "--http",
      "--port",
      String(port),
      "--config",
      config,
    ],
    env: { PATCHBAY_TOKEN: TOKEN },
  };
}

// Patchbay twice: as configured by default (mcp-remote in its worker thread), on which every goal
// is judged, and with the opt-in "isolation": "host" (docs/isolation.md), for what that trust
// choice buys over HTTP.
const PATCHBAYS = ["patchbay", "patchbay-host"];

function peerSpecs(bins, dir) {
  return [
    patchbaySpec("patchbay", path.join(dir, "thread")),
    patchbaySpec("patchbay-host", path.join(dir, "host"), "host"),
    {
      name: "mcp-proxy",
      tool: "echo",
      headers: {},
      argv: (port) => [
        bins["mcp-proxy"],
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
        "--server",
        "stream",
        "--",
        process.execPath,
        everything,
        "stdio",
      ],
      env: {},
    },
    {
      name: "supergateway",
      tool: "echo",
      headers: {},
      argv: (port) => [
        bins.supergateway,
        "--stdio",
        `${process.execPath} ${everything} stdio`,
        "--outputTransport",
        "streamableHttp",
        "--stateful",
        "--port",
        String(port),
        "--logLevel",
        "none",
      ],
      env: {},
    },
  ];
}

/** A running peer: its process, and an MCP client once `connect` has succeeded. */
async function launch(spec) {
  const port = await freePort();
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const child = spawn(process.execPath, spec.argv(port), {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...spec.env },
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise((r) => child.once("exit", (code) => r(code)));
  const peer = { spec, child, url, client: null, stderr: () => stderr, exited };
  peer.call = () => peer.client.callTool({ name: spec.tool, arguments: { message: "hi" } });
  peer.stop = async () => {
    await peer.client?.close().catch(() => undefined);
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {}
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, 3000);
    await exited;
    clearTimeout(t);
  };
  return peer;
}

/** Connects (retrying while the port is not open yet) and makes the first successful tools/call. */
async function firstCall(peer, deadlineMs = 60000) {
  const until = performance.now() + deadlineMs;
  let last;
  while (performance.now() < until) {
    if (peer.child.exitCode !== null) break;
    const client = new Client({ name: "bench", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(peer.url, { requestInit: { headers: peer.spec.headers } }),
      );
      peer.client = client;
      const r = await peer.call();
      if (!r.isError) return;
      last = new Error(JSON.stringify(r.content).slice(0, 200));
    } catch (err) {
      last = err;
      await client.close().catch(() => undefined);
      peer.client = null;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${peer.spec.name}: no successful tools/call: ${last?.message}\n${peer.stderr()}`);
}

async function coldStart(spec) {
  const t = performance.now();
  const peer = await launch(spec);
  try {
    await firstCall(peer);
    return performance.now() - t;
  } finally {
    await peer.stop();
  }
}

/** Per-call latencies (µs) of `n` sequential calls after a warm-up. */
async function sequential(peer, n) {
  for (let i = 0; i < 50; i++) await peer.call();
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await peer.call();
    out.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  return out;
}

async function perSecond(peer, n) {
  const t = process.hrtime.bigint();
  let started = 0;
  let failed = 0;
  const lane = async () => {
    while (started++ < n) if ((await peer.call()).isError) failed++;
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  if (failed) throw new Error(`${peer.spec.name}: ${failed} of ${n} calls failed with ${IN_FLIGHT} in flight`);
  return n / (Number(process.hrtime.bigint() - t) / 1e9);
}

/** RSS (MiB) of a process and its descendants, leaving out the upstream server every peer runs. */
function gatewayRss(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {}
  }
  let kib = 0;
  const visit = (p) => {
    try {
      if (readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0")[1] === everything) return;
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {}
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return kib / 1024;
}

/** CPU seconds (user + system) a process and its descendants have used, the upstream server left out. */
function gatewayCpu(pid) {
  const tick = 100; // USER_HZ on Linux
  let sum = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ");
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")[1] === everything) continue;
      // fields after "comm)": state ppid pgrp ...; utime/stime are fields 14/15 of stat (index 11/12 here)
      if (Number(entry) === pid || Number(stat[2]) === pid) sum += (Number(stat[11]) + Number(stat[12])) / tick;
    } catch {}
  }
  return sum;
}

const bins = await ensurePeers();
if (!bins) {
  console.log("peers: skipped (the peer proxies could not be installed; see above)");
  process.exit(0);
}
const dir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-peers-"));
const specs = peerSpecs(bins, dir);
try {
  // Cold starts first, interleaved round by round so every peer sees the same machine load.
  const cold = Object.fromEntries(specs.map((s) => [s.name, []]));
  for (let i = 0; i < ROUNDS; i++) for (const s of specs) cold[s.name].push(await coldStart(s));

  const peers = [];
  for (const s of specs) {
    const p = await launch(s);
    await firstCall(p);
    peers.push(p);
  }
  const seq = Object.fromEntries(specs.map((s) => [s.name, []]));
  const rate = Object.fromEntries(specs.map((s) => [s.name, []]));
  const cpu = Object.fromEntries(specs.map((s) => [s.name, []]));
  for (let i = 0; i < ROUNDS; i++)
    for (const p of peers) {
      const before = gatewayCpu(p.child.pid);
      seq[p.spec.name].push(percentile(await sequential(p, SEQ), 50));
      cpu[p.spec.name].push(((gatewayCpu(p.child.pid) - before) * 1e6) / (SEQ + 50));
      rate[p.spec.name].push(await perSecond(p, SEQ * 2));
    }
  // After the load, at rest: the median of a few samples, as each runtime gives memory back at its own pace.
  const samples = Object.fromEntries(specs.map((s) => [s.name, []]));
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 300));
    for (const p of peers) samples[p.spec.name].push(gatewayRss(p.child.pid));
  }
  const rss = Object.fromEntries(specs.map((s) => [s.name, median(samples[s.name])]));
  for (const p of peers) await p.stop();

  console.log("\nGateway vs peer proxies over Streamable HTTP (same server-everything upstream, interleaved)\n");
  console.log(
    `${"".padEnd(14)}${"cold start ms".padStart(15)}${"call p50 µs".padStart(13)}${"calls/s @64".padStart(13)}${"RSS MiB".padStart(10)}${"CPU µs/call".padStart(13)}`,
  );
  for (const s of specs)
    console.log(
      `${s.name.padEnd(14)}${median(cold[s.name]).toFixed(0).padStart(15)}${median(seq[s.name]).toFixed(0).padStart(13)}${median(rate[s.name]).toFixed(0).padStart(13)}${rss[s.name].toFixed(1).padStart(10)}${median(cpu[s.name]).toFixed(0).padStart(13)}`,
    );
  const others = specs.filter((s) => !PATCHBAYS.includes(s.name)).map((s) => s.name);
  const best = (pick, by) => others.reduce((a, b) => (by(pick[b]) < by(pick[a]) ? b : a));
  const fastCold = best(cold, median);
  const fastSeq = best(seq, median);
  const fastRate = best(rate, (xs) => -median(xs));
  const lean = others.reduce((a, b) => (rss[b] < rss[a] ? b : a));
  figure(
    "cold start to first tools/call (× fastest peer)",
    median(cold.patchbay) / median(cold[fastCold]),
    0.8,
    "×",
    `(vs ${fastCold})`,
  );
  figure(
    "sequential tools/call p50 (× fastest peer)",
    median(seq.patchbay) / median(seq[fastSeq]),
    1,
    "×",
    `(vs ${fastSeq})`,
  );
  figure(
    "calls/s with 64 in flight (best peer ÷ patchbay)",
    median(rate[fastRate]) / median(rate.patchbay),
    1,
    "×",
    `(vs ${fastRate})`,
  );
  figure("gateway RSS (× leanest peer)", rss.patchbay / rss[lean], 1.1, "×", `(vs ${lean})`);
  figure(
    'cold start, "isolation": "host" (× fastest peer)',
    median(cold["patchbay-host"]) / median(cold[fastCold]),
    Infinity,
    "×",
  );
  figure(
    'call p50, "isolation": "host" (× fastest peer)',
    median(seq["patchbay-host"]) / median(seq[fastSeq]),
    Infinity,
    "×",
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
