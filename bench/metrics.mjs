// Metrics benchmark: what counting costs a tool call, measured in one process so nothing but the
// counting differs. The gateway's own tools/call path (ToolCalls, as every transport runs it) on a
// host with the demo MCP server on the host's thread ("isolation": "host", the path with the least
// noise), with the metrics observer off and on in interleaved rounds; then the same call while
// another process sends 100 concurrent scrapes of /metrics (`--metrics-port`'s listener) every
// second, as 100 Prometheus servers on a 1 s interval would (a scrape storm), against the quiet
// metrics-on figure. Scrapes in flight together share one rendering (metrics.ts). Needs `npm run build`.
// The same call with OpenTelemetry traces on (a span per call, batched to an OTLP/HTTP sink on
// 127.0.0.1), against off.
// Goals: metrics on ≤ 1.1x off; a call during a scrape storm ≤ 1.1x a quiet one. Traces on is
// reported without a goal (a span is real work); off, they cost one null check.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Gateway } from "../dist/gateway/gateway.js";
import { createMetrics } from "../dist/gateway/metrics.js";
import { startMetricsListener } from "../dist/gateway/observe-routes.js";
import { loadTracing } from "../dist/gateway/tracing.js";
import { createHost } from "../dist/index.js";
import { oneServerConfig } from "./connectors.mjs";
import { figure, median } from "./figures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SEQ = Number(process.env.BENCH_METRICS_SEQ ?? 2000);
const ROUNDS = 5;
const STORM = 100;
const STORM_MS = 3_000;
const server = path.join(root, "servers", "demo-mcp.mjs");

const dir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-metrics-"));
const host = await createHost({ config: oneServerConfig(dir, "demo", "node", [server], "host"), logLevel: "silent" });
const gateway = new Gateway(host, { expose: {}, logger: host.logger, stateDir: null });
await gateway.start();
const status = () => ({
  pid: process.pid,
  configFile: null,
  startedAt: Date.now(),
  transports: { mcp: false, http: null },
  httpSessions: null,
  booting: false,
  tools: gateway.toolNames().length,
  instances: host.liveStatus().map((i) => ({ ...i, ...gateway.calls.stats.of(i.id) })),
});
const metrics = createMetrics(status);
const listener = await startMetricsListener(metrics, 0);
const call = () =>
  gateway.calls.call("demo__echo", { text: "hi" }, undefined, undefined, {
    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
  });
// Traces go to an OTLP/HTTP sink on 127.0.0.1 that reads and drops them (the exporter's real work, no collector).
const sink = createServer((req, res) => req.resume().on("end", () => res.writeHead(200).end("{}")));
await new Promise((resolve) => sink.listen(0, "127.0.0.1", resolve));
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${sink.address().port}`;
const tracer = await loadTracing(host.scrubber);

async function sequential(n) {
  for (let i = 0; i < 100; i++) await call();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await call();
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
}

/** µs per call over `ms` milliseconds of back-to-back calls (the storm figure spans several bursts). */
async function during(ms) {
  for (let i = 0; i < 100; i++) await call();
  const t = process.hrtime.bigint();
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    await call();
    n++;
  }
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
}

/** Another process sends STORM scrapes at once every second until told to stop; resolves with its count. */
function storm(url) {
  const code = `let stop = false, done = 0;
process.stdin.on("data", () => (stop = true));
const lane = async () => { while (!stop) { await (await fetch(${JSON.stringify(url)})).text(); done++;
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000))); } };
Promise.all(Array.from({ length: ${STORM} }, lane)).then(() => process.stdout.write(String(done)));
setTimeout(() => process.stdout.write("ready\\n"), 0);`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const ready = new Promise((resolve) => child.stdout.once("data", resolve));
  return {
    ready,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve(Number(out.replace("ready\n", "")) || 0));
        child.stdin.end("stop");
      }),
  };
}

const offUs = [];
const onUs = [];
const tracedUs = [];
const quietUs = [];
const stormUs = [];
let scrapes = 0;
for (let r = 0; r < ROUNDS; r++) {
  gateway.calls.observer = null;
  offUs.push(await sequential(SEQ));
  gateway.calls.tracer = tracer;
  tracedUs.push(await sequential(SEQ));
  gateway.calls.tracer = null;
  gateway.calls.observer = metrics;
  onUs.push(await sequential(SEQ));
  quietUs.push(await during(STORM_MS));
  const s = storm(listener.url);
  await s.ready;
  stormUs.push(await during(STORM_MS));
  scrapes += await s.stop();
}
await listener.close();
await tracer.shutdown();
sink.close();
await gateway.close();
await host.close();
rmSync(dir, { recursive: true, force: true });

figure(
  "gateway call, metrics on (× off)",
  median(onUs) / median(offUs),
  1.1,
  "×",
  `(${median(onUs).toFixed(1)} µs vs ${median(offUs).toFixed(1)} µs)`,
);
figure(
  "gateway call, traces on (× off)",
  median(tracedUs) / median(offUs),
  Infinity,
  "×",
  `(${median(tracedUs).toFixed(1)} µs vs ${median(offUs).toFixed(1)} µs; a span per call, exported over OTLP/HTTP)`,
);
figure(
  `gateway call during ${STORM} concurrent scrapes (× quiet)`,
  median(stormUs) / median(quietUs),
  1.1,
  "×",
  `(${median(stormUs).toFixed(1)} µs vs ${median(quietUs).toFixed(1)} µs; ${scrapes} scrapes)`,
);
