/**
 * A real Prometheus (Debian's, from .ci/prometheus.sh) scraping real `serve --http` replicas with
 * the bearer token, every second: after N tool calls, PromQL through Prometheus' HTTP API returns
 * N for that tool and `up` is 1; with three replicas, one query sums them. Each test starts its
 * own prometheus on 127.0.0.1 with a generated config and a temporary storage folder, and stops
 * it. Skipped, with the reason, when PATCHBAY_PROMETHEUS_BIN is not set.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, describe, it } from "vitest";
import { cleanupTempDirs, tempDir } from "../helpers.js";
import { gatewayConfig, startHttpServe, type HttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const PROMETHEUS = process.env.PATCHBAY_PROMETHEUS_BIN;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

interface Prometheus {
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  log(): string;
  stop(): Promise<void>;
}

async function startPrometheus(targets: HttpServe[]): Promise<Prometheus> {
  const dir = tempDir("pb-prom-");
  const config = path.join(dir, "prometheus.yml");
  // One job per replica: each has its own token (PATCHBAY_TOKEN), sent as Prometheus' authorization.
  const jobs = targets.map((t, i) =>
    [
      `  - job_name: patchbay-${i}`,
      "    scrape_interval: 1s",
      "    scrape_timeout: 1s",
      "    authorization:",
      `      credentials: ${JSON.stringify(t.token)}`,
      "    static_configs:",
      `      - targets: [${JSON.stringify(new URL(t.base).host)}]`,
      "        labels:",
      `          replica: r${i}`,
    ].join("\n"),
  );
  writeFileSync(
    config,
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n${jobs.join("\n")}\n`,
  );
  const port = await freePort();
  const proc: ChildProcess = spawn(
    PROMETHEUS as string,
    [
      `--config.file=${config}`,
      `--web.listen-address=127.0.0.1:${port}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      "--storage.tsdb.retention.time=1h",
      "--log.level=warn",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  proc.stdout?.on("data", (d) => (log += d));
  proc.stderr?.on("data", (d) => (log += d));
  const api = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once("exit", () => resolve());
      proc.kill("SIGTERM");
    });
  try {
    await eventually(async () => {
      if (proc.exitCode !== null) throw new Error(`prometheus exited ${proc.exitCode}:\n${log}`);
      return (await fetch(`${api}/-/ready`).catch(() => null))?.ok === true;
    }, "prometheus to be ready");
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    log: () => log,
    stop,
    async query(promql) {
      const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; data: { result: never[] }; error?: string };
      if (body.status !== "success") throw new Error(`PromQL ${promql}: ${body.error}`);
      return body.data.result;
    },
  };
}

/** Resolves once `check` answers true (asked again every 100 ms, one at a time), or throws after 30 s. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls a PromQL query until its single value is `want` (Prometheus scrapes every second). */
async function expectQuery(p: Prometheus, promql: string, want: number): Promise<void> {
  let last: unknown = null;
  await eventually(async () => {
    const r = await p.query(promql);
    last = r.length === 1 ? Number(r[0].value[1]) : r;
    return last === want;
  }, `${promql} == ${want}`).catch((err: Error) => {
    throw new Error(`${err.message}; last answer ${JSON.stringify(last)}\n${p.log()}`);
  });
}

describe.skipIf(!PROMETHEUS)("a real Prometheus scraping serve --http", () => {
  it("counts N calls of one tool through PromQL, and up is 1", async () => {
    const { file } = gatewayConfig();
    const s = await startHttpServe(file);
    const prom = await startPrometheus([s]);
    try {
      const client = await s.connect();
      const N = 5;
      for (let i = 0; i < N; i++) await client.callTool({ name: "gw__echo", arguments: { text: String(i) } });
      await client.callTool({ name: "gw__whoami", arguments: {} });
      await expectQuery(prom, 'sum(patchbay_tool_calls_total{tool="gw__echo",outcome="ok"})', N);
      await expectQuery(prom, 'up{job="patchbay-0"}', 1);
      await expectQuery(prom, 'patchbay_instance_healthy{instance_id="mcpConnectors/gw"}', 1);
      await client.close();
    } finally {
      await prom.stop();
      await s.stop();
    }
  }, 90_000);

  it("sums three replicas in one query", async () => {
    const replicas = await Promise.all(
      ["a", "b", "c"].map((r) => startHttpServe(gatewayConfig().file, { PATCHBAY_TOKEN: `token-${r}` })),
    );
    const prom = await startPrometheus(replicas);
    try {
      const counts = [2, 3, 4];
      for (const [i, s] of replicas.entries()) {
        const client = await s.connect();
        for (let k = 0; k < counts[i]; k++) await client.callTool({ name: "gw__echo", arguments: { text: "x" } });
        await client.close();
      }
      await expectQuery(prom, "count(up == 1)", 3);
      await expectQuery(prom, 'sum(patchbay_tool_calls_total{tool="gw__echo"})', 9);
      await expectQuery(prom, 'count(patchbay_tool_calls_total{tool="gw__echo"})', 3);
    } finally {
      await prom.stop();
      await Promise.all(replicas.map((s) => s.stop()));
    }
  }, 120_000);
});

describe.skipIf(PROMETHEUS)("a real Prometheus (not installed)", () => {
  it("is skipped", (ctx) => {
    console.log(
      'skipped: PATCHBAY_PROMETHEUS_BIN is not set (eval "$(.ci/prometheus.sh)" installs Debian\'s prometheus)',
    );
    ctx.skip();
  });
});
