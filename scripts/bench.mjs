// `npm run bench`: measures Patchbay's plugin boundary against a raw MessagePort round trip
// measured in the same run on the same machine, and prints ratios (absolute numbers vary with
// the machine; the ratios are what DESIGN.md's goals are stated in). Needs `npm run build`.
import { MessageChannel, Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { createHost } from "../dist/index.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const SEQ = Number(process.env.BENCH_SEQ ?? 3000);
const PIPE = 64;
const ROUNDS = 5;
const small = { text: "hi" };
const big = { text: "x".repeat(64 * 1024) };

async function rawPeer() {
  const worker = new Worker(path.join(root, "bench", "raw-echo-worker.mjs"));
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ port: port2 }, [port2]);
  await new Promise((r) => worker.once("message", r));
  const pending = new Map();
  let next = 0;
  port1.on("message", (m) => { pending.get(m.id)(m.value); pending.delete(m.id); });
  const call = (args) => new Promise((resolve) => { const id = next++; pending.set(id, resolve); port1.postMessage({ id, method: "call", args }); });
  return { call, close: () => worker.terminate() };
}

async function patchbayPeer(isolation = "thread") {
  const host = await createHost({
    config: { plugins: ["./bench/plugins"], mcpConnectors: { bench: { plugin: "bench-echo", isolation } } },
    dir: root, logLevel: "silent",
  });
  const mcp = host.mcp("bench");
  return { call: (args) => mcp.call("echo", args), close: () => host.close() };
}

async function sequential(peer, args, n) {
  for (let i = 0; i < 200; i++) await peer.call(args); // warm up
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await peer.call(args);
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
}

async function pipelined(peer, args, n) {
  const t = process.hrtime.bigint();
  for (let done = 0; done < n; done += PIPE) await Promise.all(Array.from({ length: PIPE }, () => peer.call(args)));
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function startTimes() {
  const bare = [];
  const plugin = [];
  for (let i = 0; i < 5; i++) {
    let t = performance.now();
    const w = new Worker("require('node:worker_threads').parentPort.postMessage(1)", { eval: true });
    await new Promise((r) => w.once("message", r));
    bare.push(performance.now() - t);
    await w.terminate();
    t = performance.now();
    const peer = await patchbayPeer(); // boot = worker start + jiti import (warm cache) + create + health
    plugin.push(performance.now() - t);
    await peer.close();
  }
  return { bare: median(bare), plugin: median(plugin) };
}

/** Resident memory each idle instance adds: N instances booted, RSS delta divided by N. */
async function memoryPerInstance(n) {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const instances = Object.fromEntries(Array.from({ length: n }, (_, i) => [`b${i}`, { plugin: "bench-echo" }]));
  const host = await createHost({ config: { plugins: ["./bench/plugins"], mcpConnectors: instances }, dir: root, logLevel: "silent" });
  await new Promise((r) => setTimeout(r, 1000));
  globalThis.gc?.();
  const perInstance = (process.memoryUsage().rss - before) / n / 2 ** 20;
  await host.close();
  return perInstance;
}

const raw = await rawPeer();
const pb = await patchbayPeer();
const pbProcess = await patchbayPeer("process");
const rows = [];
for (const [label, fn, args, n] of [
  ["sequential, small", sequential, small, SEQ],
  ["pipelined x64, small", pipelined, small, SEQ * 4],
  ["sequential, 64 KiB", sequential, big, Math.ceil(SEQ / 3)],
]) {
  const r = [];
  const p = [];
  for (let i = 0; i < ROUNDS; i++) { // interleaved, so both see the same machine load
    r.push(await fn(raw, args, n));
    p.push(await fn(pb, args, n));
  }
  rows.push([label, median(r), median(p)]);
}
{
  const r = [];
  const p = [];
  for (let i = 0; i < ROUNDS; i++) {
    r.push(await sequential(raw, small, Math.ceil(SEQ / 3)));
    p.push(await sequential(pbProcess, small, Math.ceil(SEQ / 3)));
  }
  rows.push(["isolation: process, small", median(r), median(p)]);
}
await raw.close();
await pb.close();
await pbProcess.close();
const memory = await memoryPerInstance(10);
const start = await startTimes();

console.log("Patchbay boundary vs raw MessagePort (same run, medians of interleaved rounds)\n");
console.log("case                      raw µs/call   patchbay µs/call   ratio");
for (const [label, r, p] of rows) console.log(`${label.padEnd(26)}${r.toFixed(1).padStart(11)}${p.toFixed(1).padStart(19)}${(p / r).toFixed(2).padStart(8)}x`);
console.log(`\nworker ready: bare Worker ${start.bare.toFixed(1)} ms, Patchbay instance boot (start + load + health) ${start.plugin.toFixed(1)} ms, ratio ${(start.plugin / start.bare).toFixed(2)}x`);
console.log(`memory: ${memory.toFixed(1)} MiB resident per idle thread instance (10 booted; RSS delta / 10)`);
console.log("\nGoals (DESIGN.md / perfbase.md): sequential ≤ 1.2x, pipelined ≤ 2.5x, 64 KiB ≤ 1.3x, ready ≤ 2.5x a bare Worker, idle instance ≤ 15 MiB.");
console.log("isolation: process pays Node's IPC pipe (fork + advanced serialization); it has no goal of its own.");
await import("../bench/gateway.mjs"); // issue 9: the MCP gateway vs a direct SDK client
await import("../bench/hook.mjs");
