// Sandbox vs process isolation, in the same run: instance start (boot of one instance:
// spawn + load + health) and a sequential small call round trip. Goal: sandbox call ≤ 1.2× a
// process call; the start overhead is reported. Plus config scale: 10,000 instances and a
// 5,000-long alias chain, load + plan (goal < 2 s). Skips the sandbox with the reason when bwrap
// cannot run here. Needs `npm run build`.
import { fileURLToPath } from "node:url";
import { figure } from "./figures.mjs";
import { createHost } from "../dist/index.js";
import { sandboxProblem } from "../dist/spawn/sandbox-runtime.js";
import { loadConfig } from "../dist/config/load.js";
import { scanPlugins } from "../dist/discovery/scan.js";
import { planInstances } from "../dist/discovery/plan.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const N = Number(process.env.BENCH_SEQ ?? 3000);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function boot(isolation) {
  const t = performance.now();
  const host = await createHost({
    config: { plugins: ["./bench/plugins"], mcpConnectors: { bench: { plugin: "bench-echo", isolation } } },
    dir: root,
    logLevel: "silent",
  });
  return { host, ms: performance.now() - t, mcp: host.mcp("bench") };
}

async function sequential(mcp, n) {
  for (let i = 0; i < 200; i++) await mcp.call("echo", { text: "hi" });
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await mcp.call("echo", { text: "hi" });
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
}

const problem = sandboxProblem();
if (problem) {
  console.log(`sandbox: skipped (${problem})`);
} else {
  const starts = { process: [], sandbox: [] };
  for (let i = 0; i < 5; i++)
    for (const mode of ["process", "sandbox"]) {
      const b = await boot(mode);
      starts[mode].push(b.ms);
      await b.host.close();
    }
  const p = await boot("process");
  const s = await boot("sandbox");
  const calls = { process: [], sandbox: [] };
  for (let i = 0; i < 5; i++) {
    // interleaved rounds: both see the same machine load
    calls.process.push(await sequential(p.mcp, Math.ceil(N / 3)));
    calls.sandbox.push(await sequential(s.mcp, Math.ceil(N / 3)));
  }
  await p.host.close();
  await s.host.close();
  const [sp, ss] = [median(starts.process), median(starts.sandbox)];
  const [cp, cs] = [median(calls.process), median(calls.sandbox)];
  console.log("Sandbox (bwrap) vs process isolation (same run, medians)\n");
  console.log(
    `instance start      process ${sp.toFixed(0)} ms   sandbox ${ss.toFixed(0)} ms   overhead ${(ss - sp).toFixed(0)} ms (${(ss / sp).toFixed(2)}x)`,
  );
  console.log(
    `call, small, seq    process ${cp.toFixed(1)} µs   sandbox ${cs.toFixed(1)} µs   ratio ${(cs / cp).toFixed(2)}x (goal ≤ 1.20x)`,
  );
  figure("sandbox call, small, seq (× process isolation)", cs / cp, 1.2, "×");
}

{
  const instances = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`e${i}`, { plugin: "bench-echo" }]));
  for (let i = 0; i < 5_000; i++) instances[`a${i}`] = i === 0 ? "e0" : `a${i - 1}`;
  const t = performance.now();
  const config = await loadConfig({
    config: { plugins: ["./bench/plugins"], mcpConnectors: instances },
    dir: root,
    env: {},
  });
  const plan = planInstances(config, scanPlugins(config.pluginDirs, null));
  const ms = performance.now() - t;
  console.log(
    `\nconfig scale: 10,000 instances + a 5,000-long alias chain loaded and planned in ${ms.toFixed(0)} ms (goal < 2000 ms; ${plan.instances.length} planned)`,
  );
  figure("config of 10,000 instances loaded and planned", ms / 1000, 2, " s");
}
