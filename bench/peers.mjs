// Patchbay's gateway against the MCP gateways users pick instead, in the same run, interleaved:
// mcp-hub, mcp-proxy and supergateway (installed for the bench only, outside the project, by
// bench/peer-install.mjs), each fronting the same server-everything over stdio, against
// `patchbay serve --http` fronting it through mcp-remote, all on 127.0.0.1. Every client is the MCP
// SDK's: Streamable HTTP, except for mcp-hub, whose one MCP endpoint is HTTP+SSE.
//
// Figures (bench/peer-measure.mjs): cold start (spawn → first successful tools/call), then, after a
// warm-up, sequential tools/call p50, calls/s with 64 in flight, and the gateway's resident memory
// (its own processes, the upstream server excluded: every peer runs the same one). supergateway
// runs with --stateful: its default (stateless) spawns a new server for every POST, which no one
// would measure a call against. Beside them, measured the same way, the client's own ceiling on this
// machine (bench/instant-http-server.mjs), and the CPU the client spends per call against each.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { oneServerConfig } from "./connectors.mjs";
import { ensurePeers } from "./peer-install.mjs";
import { figure, median, percentile } from "./figures.mjs";
import {
  coldStart,
  everything,
  firstCall,
  gatewayCpu,
  gatewayRss,
  launch,
  perSecond,
  sequential,
} from "./peer-measure.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 5);
const SEQ = Number(process.env.BENCH_PEER_SEQ ?? 400);
const WARM_ROUNDS = Number(process.env.BENCH_PEER_WARM_ROUNDS ?? 4);
const TOKEN = "bench-token-0123456789abcdef0123456789";

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
// Not a gateway: the ceiling the bench's client reaches on this machine (bench/instant-http-server.mjs),
// measured in the warm rounds beside the others, never a goal's peer.
const CEILING = "instant-http";
const ceilingSpec = () => ({
  name: CEILING,
  tool: "echo",
  headers: {},
  argv: (port) => [path.join(root, "bench", "instant-http-server.mjs"), String(port)],
  env: {},
});

/** mcp-hub's config (the mcpServers shape Claude Desktop reads): the one upstream, over stdio. */
function hubConfig(dir) {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "mcp-servers.json");
  const server = { command: process.execPath, args: [everything, "stdio"] };
  writeFileSync(file, JSON.stringify({ mcpServers: { everything: server } }));
  return file;
}

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
      // mcp-hub serves every server of its config on one endpoint, GET /mcp (HTTP+SSE), tools
      // named `<server>__<tool>`; its logs and workspace cache go to the XDG folders, kept here.
      name: "mcp-hub",
      tool: "everything__echo",
      transport: "sse",
      headers: {},
      argv: (port) => [bins["mcp-hub"], "--port", String(port), "--config", hubConfig(path.join(dir, "hub"))],
      env: { XDG_STATE_HOME: path.join(dir, "hub", "state"), XDG_CONFIG_HOME: path.join(dir, "hub", "config") },
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
  for (const s of [...specs, ceilingSpec()]) {
    const p = await launch(s);
    await firstCall(p);
    peers.push(p);
  }
  // Every gateway here is JavaScript on V8, whose code gets fast only as it runs: measured on this
  // bench's 2-core machine, each one's call p50 fell from ~3 ms to ~1 ms over its first ~5,000
  // calls (Patchbay's and mcp-hub's alike), and the rounds below made ~1,250 calls each, so they
  // timed the warm-up. A gateway serves for hours; what its clients meet is the steady state, so
  // each is warmed first, interleaved as the rounds are, calls one by one and 64 at a time.
  for (let i = 0; i < WARM_ROUNDS; i++)
    for (const p of peers) {
      await sequential(p, 200);
      await perSecond(p, 1000);
    }
  const seq = Object.fromEntries(specs.map((s) => [s.name, []]));
  const rate = Object.fromEntries(specs.map((s) => [s.name, []]));
  const cpu = Object.fromEntries(specs.map((s) => [s.name, []]));
  // The bench's own CPU per call with 64 in flight: what each server's way of answering costs the
  // client, which shares the two cores with it.
  const clientCpu = Object.fromEntries(peers.map((p) => [p.spec.name, []]));
  seq[CEILING] = [];
  rate[CEILING] = [];
  for (let i = 0; i < ROUNDS; i++)
    for (const p of peers) {
      const before = gatewayCpu(p.child.pid);
      seq[p.spec.name].push(percentile(await sequential(p, SEQ), 50));
      cpu[p.spec.name]?.push(((gatewayCpu(p.child.pid) - before) * 1e6) / (SEQ + 50));
      const mine = process.cpuUsage();
      rate[p.spec.name].push(await perSecond(p, SEQ * 2));
      const used = process.cpuUsage(mine);
      clientCpu[p.spec.name].push((used.user + used.system) / (SEQ * 2));
    }
  // After the load, at rest: the median of a few samples, as each runtime gives memory back at its own pace.
  const samples = Object.fromEntries(specs.map((s) => [s.name, []]));
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 300));
    for (const p of peers) if (p.spec.name !== CEILING) samples[p.spec.name].push(gatewayRss(p.child.pid));
  }
  const rss = Object.fromEntries(specs.map((s) => [s.name, median(samples[s.name])]));
  for (const p of peers) await p.stop();

  console.log("\nGateway vs peer gateways over HTTP (same server-everything upstream, interleaved)\n");
  // CPU µs/call: the gateway's own processes, calls one by one; client µs @64: the bench's, 64 in flight.
  const cell = (value, width, digits = 0) => (value === undefined ? "–" : value.toFixed(digits)).padStart(width);
  console.log(
    `${"".padEnd(14)}${"cold start ms".padStart(15)}${"call p50 µs".padStart(13)}${"calls/s @64".padStart(13)}${"RSS MiB".padStart(10)}${"CPU µs/call".padStart(13)}${"client µs @64".padStart(15)}`,
  );
  for (const name of [...specs.map((s) => s.name), CEILING])
    console.log(
      `${name.padEnd(14)}${cell(cold[name] && median(cold[name]), 15)}${cell(median(seq[name]), 13)}${cell(median(rate[name]), 13)}${cell(rss[name], 10, 1)}${cell(cpu[name] && median(cpu[name]), 13)}${cell(median(clientCpu[name]), 15)}`,
    );
  console.log(
    `  (${CEILING}: bench/instant-http-server.mjs, answering at once with no upstream: what the client itself allows)`,
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
    0.9,
    "×",
    `(vs ${fastSeq})`,
  );
  figure(
    "calls/s with 64 in flight (best peer ÷ patchbay)",
    median(rate[fastRate]) / median(rate.patchbay),
    // at least 1.2× the best peer's calls/s, as a ratio kept under its goal like the others (1 / 1.2)
    0.83,
    "×",
    `(vs ${fastRate})`,
  );
  figure("gateway RSS (× leanest peer)", rss.patchbay / rss[lean], 0.9, "×", `(vs ${lean})`);
  figure(
    "calls/s @64, the client's ceiling (instant server ÷ best peer)",
    median(rate[CEILING]) / median(rate[fastRate]),
    Infinity,
    "×",
  );
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
