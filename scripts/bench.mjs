// `npm run bench`: every performance figure of the project against its goal, each as a ratio to
// a floor measured in the same run on the same machine (absolute numbers vary with the machine
// and its load; the goals are ratios). Needs `npm run build`. Each figure is a median of
// several rounds; the floor of a ratio is measured in the same rounds (interleaved).
//
// Topic benchmarks live in bench/<topic>.mjs and are run from the TOPICS list at the bottom,
// one line each, in a fresh node process so they cannot disturb each other's figures.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";
import { createHost } from "../dist/index.js";
import { figure as print, median } from "../bench/figures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SEQ = Number(process.env.BENCH_SEQ ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ONLY = process.env.BENCH_ONLY?.split(",");
const PIPE = 64;
const small = { text: "hi" };
const big = { text: "x".repeat(64 * 1024) };
const rows = [];

/** One printed figure: value is a ratio (×) or MiB; goal is its upper bound. */
function figure(name, value, goal, unit, detail = "") {
  rows.push({ name, value, goal, unit, detail });
  print(name, value, goal, unit, detail);
}

// --- floors ---------------------------------------------------------------------------------

async function bareWorkers(n) {
  const t = performance.now();
  const ws = Array.from({ length: n }, () => new Worker(path.join(root, "bench", "bare-worker.mjs")));
  await Promise.all(ws.map((w) => new Promise((r) => w.once("message", r))));
  const ms = performance.now() - t;
  await Promise.all(ws.map((w) => w.terminate()));
  return ms;
}

async function rawPeer() {
  const worker = new Worker(path.join(root, "bench", "raw-echo-worker.mjs"));
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ port: port2 }, [port2]);
  await new Promise((r) => worker.once("message", r));
  const pending = new Map();
  let next = 0;
  port1.on("message", (m) => {
    pending.get(m.id)(m.value);
    pending.delete(m.id);
  });
  const call = (args) =>
    new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      port1.postMessage({ id, method: "call", args });
    });
  return { call, close: () => worker.terminate() };
}

// --- Patchbay --------------------------------------------------------------------------------

function instances(n, extra = {}) {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`b${i}`, { plugin: "bench-echo", ...extra }]));
}

async function boot(n, extra) {
  const t = performance.now();
  const host = await createHost({
    config: { plugins: ["./bench/plugins"], mcpConnectors: instances(n, extra) },
    dir: root,
    logLevel: "silent",
  });
  const ms = performance.now() - t;
  const report = host.report();
  if (!report.ok) {
    await host.close();
    throw new Error(
      `bench boot did not start every instance: ${JSON.stringify(report.problems[0] ?? report.instances.find((i) => i.state !== "ready"))}`,
    );
  }
  return { host, ms };
}

async function patchbayPeer(extra = {}) {
  const { host } = await boot(1, extra);
  const mcp = host.mcp("b0");
  return { call: (args) => mcp.call("echo", args), close: () => host.close() };
}

async function sequential(peer, args, n) {
  for (let i = 0; i < 200; i++) await peer.call(args); // warm up
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await peer.call(args);
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
}

async function pipelined(peer, args, n) {
  await Promise.all(Array.from({ length: PIPE }, () => peer.call(args))); // warm up
  const t = process.hrtime.bigint();
  for (let done = 0; done < n; done += PIPE) await Promise.all(Array.from({ length: PIPE }, () => peer.call(args)));
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
}

/** Resident memory after a full GC, with `n` idle instances booted (0 = none). */
async function rssWith(n, extra) {
  const { host } = n > 0 ? await boot(n, extra) : { host: null };
  await new Promise((r) => setTimeout(r, 500));
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 100));
  globalThis.gc?.();
  const rss = process.memoryUsage().rss / 2 ** 20;
  await host?.close();
  return rss;
}

/** Least-squares slope of RSS over 1/10/20 instances: MiB each further instance costs. */
async function memorySlope(extra) {
  const xs = [1, 10, 20];
  const ys = [];
  for (const n of xs) ys.push(median(await repeat(3, () => rssWith(n, extra))));
  const mx = xs.reduce((a, b) => a + b) / xs.length;
  const my = ys.reduce((a, b) => a + b) / ys.length;
  return xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
}

async function repeat(n, fn) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await fn());
  return out;
}

function timeProcess(cmd, args, env = {}) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  const ms = performance.now() - t;
  if (r.status !== 0 && r.status !== 3)
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${String(r.stderr).slice(0, 500)}`);
  return ms;
}

// --- the figures -----------------------------------------------------------------------------

const want = (name) => !ONLY || ONLY.includes(name);

if (want("boot")) {
  console.error("boot (20 instances vs 20 bare workers started in parallel)");
  const ratios = [];
  const groupRatios = [];
  // Boots and fresh processes vary most with the machine's load: at least five rounds each.
  for (let i = 0; i < Math.max(ROUNDS, 5); i++) {
    const floor = await bareWorkers(20);
    const one = await boot(20);
    await one.host.close();
    ratios.push(one.ms / floor);
    try {
      const grouped = await boot(20, { worker: "bench" });
      await grouped.host.close();
      groupRatios.push(grouped.ms / floor);
    } catch (err) {
      if (i === 0) console.error(`  group mode unavailable: ${err.message.split("\n")[0]}`);
    }
  }
  figure(
    "boot of 20, one worker each (× 20 bare workers)",
    median(ratios),
    1.5,
    "×",
    `[${ratios.map((r) => r.toFixed(2)).join(", ")}]`,
  );
  if (groupRatios.length)
    figure(
      "boot of 20 in one group (× 20 bare workers)",
      median(groupRatios),
      1,
      "×",
      `[${groupRatios.map((r) => r.toFixed(2)).join(", ")}]`,
    );
}

if (want("memory")) {
  console.error("memory (RSS slope over 1/10/20 idle instances, median of 3 per point)");
  figure("idle instance, one worker each", await memorySlope(), 10, " MiB");
  try {
    figure("idle instance in a group", await memorySlope({ worker: "bench" }), 4, " MiB");
  } catch (err) {
    console.error(`  group mode unavailable: ${err.message.split("\n")[0]}`);
  }
}

if (want("calls")) {
  console.error("calls (µs per call, raw MessagePort and Patchbay interleaved)");
  const raw = await rawPeer();
  const pb = await patchbayPeer();
  for (const [label, fn, args, n, goal] of [
    ["sequential small call (× raw port)", sequential, small, SEQ, 1.15],
    ["64 in flight, per call (× raw port)", pipelined, small, SEQ * 4, 1.5],
    ["sequential 64 KiB call (× raw port)", sequential, big, Math.ceil(SEQ / 3), 1.2],
  ]) {
    const r = [];
    const p = [];
    for (let i = 0; i < Math.max(ROUNDS, 5); i++) {
      r.push(await fn(raw, args, n));
      p.push(await fn(pb, args, n));
    }
    figure(
      label,
      median(p) / median(r),
      goal,
      "×",
      `(raw ${median(r).toFixed(1)} µs, patchbay ${median(p).toFixed(1)} µs)`,
    );
  }
  await raw.close();
  await pb.close();
}

if (want("cli")) {
  console.error("CLI (wall time of a fresh process vs its floor, median of rounds)");
  const home = mkdtempSync(path.join(os.tmpdir(), "pb-bench-"));
  const cfg = path.join(home, "connectors.json");
  writeFileSync(
    cfg,
    JSON.stringify({ plugins: [path.join(root, "bench", "plugins")], mcpConnectors: { b0: { plugin: "bench-echo" } } }),
  );
  const bin = path.join(root, "bin", "patchbay.mjs");
  const nodeE = [],
    bareProc = [],
    start = [],
    version = [],
    help = [],
    call = [];
  for (let i = 0; i < Math.max(ROUNDS, 5); i++) {
    nodeE.push(timeProcess(process.execPath, ["-e", "0"]));
    bareProc.push(timeProcess(process.execPath, [path.join(root, "bench", "bare-worker-process.mjs")]));
    start.push(timeProcess(process.execPath, [bin, "boot"], { PATCHBAY_HOME: home }));
    version.push(timeProcess(process.execPath, [bin, "--version"]));
    help.push(timeProcess(process.execPath, [bin, "--help"]));
    call.push(
      timeProcess(process.execPath, [bin, "call", "mcpConnectors/b0", "call", '"echo"', "{}", "--config", cfg]),
    );
  }
  rmSync(home, { recursive: true, force: true });
  const f = median(nodeE);
  figure(
    "npm start (× a bare worker process)",
    median(start) / median(bareProc),
    5,
    "×",
    `(${median(start).toFixed(0)} ms vs ${median(bareProc).toFixed(0)} ms)`,
  );
  figure(
    "patchbay --version (× node -e 0)",
    median(version) / f,
    2,
    "×",
    `(${median(version).toFixed(0)} ms vs ${f.toFixed(0)} ms)`,
  );
  figure("patchbay --help (× node -e 0)", median(help) / f, 2, "×");
  figure(
    "patchbay call, no serve running (× node -e 0)",
    median(call) / f,
    Infinity,
    "×",
    "(goal applies only when a serve is up: see the topic benches)",
  );
}

// --- topic benchmarks: one line each, `bench/<topic>.mjs`, run in their own process -----------
const TOPICS = [
  "bench/hook.mjs",
  "bench/sandbox.mjs",
  "bench/gateway.mjs",
  "bench/first-call.mjs",
  "bench/peers.mjs",
  "bench/metrics.mjs",
  "bench/pins.mjs",
  "bench/clients.mjs",
  // Needs PostgreSQL and HAProxy (.ci/postgres.sh, .ci/haproxy.sh); says so and skips without them.
  "bench/scale-out-shared.mjs",
];

for (const topic of TOPICS) {
  if (!want(path.basename(topic, ".mjs"))) continue;
  console.error(`\n${topic}`);
  // A topic's figures come back through a JSON-lines file (bench/figures.mjs), for the table below.
  const file = path.join(os.tmpdir(), `pb-bench-figures-${process.pid}-${path.basename(topic, ".mjs")}.jsonl`);
  rmSync(file, { force: true });
  execFileSync(process.execPath, ["--expose-gc", path.join(root, topic)], {
    stdio: "inherit",
    cwd: root,
    env: { ...process.env, PATCHBAY_BENCH_FIGURES: file },
  });
  if (existsSync(file)) {
    for (const line of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
      const r = JSON.parse(line);
      rows.push({ ...r, goal: r.goal ?? Infinity });
    }
    rmSync(file, { force: true });
  }
}

console.log("\nPatchbay performance, ratios to floors measured in the same run (median of rounds)\n");
console.log(`${"figure".padEnd(58)}${"value".padStart(12)}${"goal".padStart(12)}  met`);
for (const r of rows) {
  const goal = Number.isFinite(r.goal) ? `≤ ${r.goal}${r.unit}` : "–";
  const met = Number.isFinite(r.goal) ? (r.value <= r.goal ? "yes" : "NO") : "";
  console.log(
    `${r.name.padEnd(58)}${(r.value.toFixed(2) + r.unit).padStart(12)}${goal.padStart(12)}  ${met}  ${r.detail}`,
  );
}
