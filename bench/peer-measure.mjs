// How the peer bench measures one gateway (bench/peers.mjs says what it compares): launch it, reach
// its first successful tools/call, time calls one by one and 64 at a time, and read the memory and
// CPU of its own processes (the upstream server every peer runs is left out).
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const root = fileURLToPath(new URL("..", import.meta.url));
export const IN_FLIGHT = 64;
export const everything = path.join(
  root,
  "node_modules",
  "@modelcontextprotocol",
  "server-everything",
  "dist",
  "index.js",
);

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** A running peer: its process, and an MCP client once `connect` has succeeded. */
export async function launch(spec) {
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

/**
 * A POST without the transport's one AbortSignal. The SDK hands that signal to every request, and
 * Node's fetch adds an abort listener to it per request, removed only when the request is
 * garbage-collected, and lists every listener on it before each new one: the client's cost per call
 * grows with the requests the collector has not reached yet (2,000 and more here). Measured with
 * 64 in flight: the client spent 100-250 µs more per call with the signal than without (against
 * every peer, most against those that answer on the POST), and the client, not the gateway, was
 * what limited calls/s. The bench never aborts a request, so without the signal each call costs
 * the client what it costs, and the figures measure the gateways.
 */
const postWithoutSharedSignal = (url, init) =>
  fetch(url, init?.method === "POST" ? { ...init, signal: undefined } : init);

/**
 * The client transport a peer serves: Streamable HTTP, or for `spec.transport: "sse"` the older
 * HTTP+SSE one (a GET that opens the stream, POSTs to the endpoint it names).
 */
function transportOf(peer) {
  const opts = { requestInit: { headers: peer.spec.headers }, fetch: postWithoutSharedSignal };
  return peer.spec.transport === "sse"
    ? new SSEClientTransport(peer.url, opts)
    : new StreamableHTTPClientTransport(peer.url, opts);
}

/** Connects (retrying while the port is not open yet) and makes the first successful tools/call. */
export async function firstCall(peer, deadlineMs = 60000) {
  const until = performance.now() + deadlineMs;
  let last;
  while (performance.now() < until) {
    if (peer.child.exitCode !== null) break;
    const client = new Client({ name: "bench", version: "1.0.0" });
    try {
      await client.connect(transportOf(peer));
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

export async function coldStart(spec) {
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
export async function sequential(peer, n) {
  for (let i = 0; i < 50; i++) await peer.call();
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await peer.call();
    out.push(Number(process.hrtime.bigint() - t) / 1e3);
  }
  return out;
}

export async function perSecond(peer, n) {
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
export function gatewayRss(pid) {
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
export function gatewayCpu(pid) {
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
