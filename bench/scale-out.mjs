#!/usr/bin/env node
/**
 * Scale-out harness: N `serve --http` replicas (each in its own folder, one postgres-memory table)
 * behind a real HAProxy running the configuration docs/deployment.md shows, and writing clients
 * that retry with their keys. Used by tests/gateway/scale-out.test.ts; run alone it measures kill
 * runs and prints acknowledged writes vs rows, duplicates and the longest client stall:
 *
 *   PATCHBAY_TEST_PG_URL=... PATCHBAY_HAPROXY=/usr/sbin/haproxy node bench/scale-out.mjs [runs=3] [mode]
 *
 * mode: stateless (the default), stateful, or shared (bench/scale-out-shared.mjs: sessions in
 * PostgreSQL, subscriptions). `node bench/scale-out.mjs figure`: seq tools/call p50 of shared
 * sessions against --stateless, measured in the same run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pg from "pg";
import { startHaproxy, stopProc } from "./scale-out-lb.mjs";

export { freePort, haproxyConfig, startHaproxy, stopProc } from "./scale-out-lb.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BIN = path.join(ROOT, "bin", "patchbay.mjs");
export const WRITE_TOOL = "memory__shared__write";
export const KEY_META = "patchbay/idempotency-key";
/** A client's request timeout: far above any healthy call, so a call that reaches it hung. */
export const CALL_TIMEOUT_MS = 20_000;

/**
 * One replica: its own folder and connectors.json, `serve --http [--stateless]` on `port` (0: any).
 * `extra` adds to the config (mcpConnectors, and gateway keys such as state, clients, expose).
 */
export function startReplica({ pgUrl, table, token, stateless, port = 0, dir, extra = {} }) {
  dir ??= mkdtempSync(path.join(os.tmpdir(), "pb-scale-"));
  const file = path.join(dir, "connectors.json");
  writeFileSync(
    file,
    JSON.stringify(
      {
        plugins: [],
        defaults: { timeout_ms: 10_000, health_interval_ms: 2_000 },
        memoryStores: {
          shared: { plugin: "postgres-memory", config: { connection_string: "${PATCHBAY_SCALE_PG}", table } },
        },
        ...(extra.mcpConnectors ? { mcpConnectors: extra.mcpConnectors } : {}),
        gateway: {
          ...extra.gateway,
          expose: { "memoryStores/shared": ["query", "get", "write"], ...extra.gateway?.expose },
        },
      },
      null,
      2,
    ),
  );
  const args = [
    BIN,
    "serve",
    "--http",
    "--port",
    String(port),
    "--config",
    file,
    ...(stateless ? ["--stateless"] : []),
  ];
  const proc = spawn(process.execPath, args, {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PATCHBAY_TOKEN: token,
      PATCHBAY_SCALE_PG: pgUrl,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  return new Promise((resolve, reject) => {
    proc.stderr.on("data", (d) => {
      err += d;
      const m = /Streamable HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(err);
      if (m && !settled) {
        settled = true;
        resolve({
          dir,
          port: Number(m[1]),
          proc,
          stderr: () => err,
          alive: () => proc.exitCode === null && proc.signalCode === null,
        });
      }
    });
    let settled = false;
    proc.once("exit", (code, signal) => {
      if (!settled) reject(new Error(`replica exited (${code ?? signal}) before listening:\n${err}`));
    });
  });
}

/**
 * An SDK client through `url`. Opening a session is retried (a few times, backing off): a kept-alive
 * connection the balancer closed just then ("other side closed") fails a POST, and initialize is
 * safe to send again.
 */
export async function connect(url, token) {
  for (let attempt = 1; ; attempt++) {
    const client = new Client({ name: "scale-writer", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    } catch (err) {
      await client.close().catch(() => {});
      if (attempt >= 10) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

/**
 * `clients` writers, `perClient` writes each, every write retried until acknowledged with the same
 * record id (even clients) or idempotency key (odd clients). `onAck(total)` after each ack (the
 * kill trigger). Every attempt is timed; an attempt ended by the client's own timeout is counted.
 */
export async function writeLoad({ url, token, run, clients, perClient, onAck = () => {}, reconnectOn404 = false }) {
  const stats = {
    acked: [],
    attempts: 0,
    failures: 0,
    timeouts: 0,
    longestAttemptMs: 0,
    longestWriteMs: 0,
    errors: new Map(),
  };
  let total = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      let client = await connect(url, token);
      for (let i = 0; i < perClient; i++) {
        const key = `${run}-c${c}-w${i}`;
        const byId = c % 2 === 0;
        const params = {
          name: WRITE_TOOL,
          arguments: byId ? { id: key, summary: key } : { summary: key },
          ...(byId ? {} : { _meta: { [KEY_META]: key } }),
        };
        const first = performance.now();
        for (let attempt = 1; ; attempt++) {
          const t0 = performance.now();
          stats.attempts++;
          let ok = false;
          let why = "";
          try {
            const result = await client.callTool(params, undefined, { timeout: CALL_TIMEOUT_MS });
            ok = !result.isError;
            if (!ok) why = String(result.content?.[0]?.text ?? "tool error").split("]")[0] + "]";
          } catch (err) {
            const full = String(err?.message ?? err);
            why = full.slice(0, 80);
            if (/timed out/i.test(full)) stats.timeouts++;
            if (reconnectOn404 && (err?.code === 404 || /-32001|Session not found/.test(full))) {
              why = "404 session not found (re-initialized)";
              await client.close().catch(() => {});
              client = await connect(url, token).catch(() => client);
            }
          }
          const took = performance.now() - t0;
          stats.longestAttemptMs = Math.max(stats.longestAttemptMs, took);
          if (ok) break;
          stats.failures++;
          stats.errors.set(why, (stats.errors.get(why) ?? 0) + 1);
          if (attempt >= 100) throw new Error(`write ${key} not acknowledged after 100 attempts (last: ${why})`);
          await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
        }
        stats.longestWriteMs = Math.max(stats.longestWriteMs, performance.now() - first);
        stats.acked.push(key);
        onAck(++total);
      }
      await client.close().catch(() => {});
    }),
  );
  return stats;
}

/** Rows of one run in the table: how many, how many distinct summaries, which acknowledged keys are missing. */
export async function verifyRun(pgUrl, table, run, acked) {
  const db = new pg.Client({ connectionString: pgUrl });
  await db.connect();
  try {
    const { rows } = await db.query(`SELECT summary FROM "${table}" WHERE summary LIKE $1`, [`${run}-%`]);
    const summaries = rows.map((r) => r.summary);
    const distinct = new Set(summaries);
    return {
      rows: summaries.length,
      distinct: distinct.size,
      duplicates: summaries.length - distinct.size,
      lost: acked.filter((k) => !distinct.has(k)),
    };
  } finally {
    await db.end();
  }
}

export async function dropTable(pgUrl, table) {
  const db = new pg.Client({ connectionString: pgUrl });
  await db.connect();
  await db.query(`DROP TABLE IF EXISTS "${table}"`).finally(() => db.end());
}

/**
 * A cluster of `n` replicas on one table behind HAProxy. Mode `shared` is stateful (no
 * --stateless); its `extra` config names the shared state (bench/scale-out-shared.mjs).
 */
export async function startCluster({
  pgUrl,
  haproxy,
  mode,
  n = 3,
  token = `scale-${process.pid}-${Date.now()}`,
  extra,
}) {
  const table = `pb_scale_${process.pid}_${Date.now()}`;
  const stateless = mode === "stateless";
  const dir = mkdtempSync(path.join(os.tmpdir(), "pb-scale-lb-"));
  // Sequential: the first replica creates the table (the plugin migrates on start).
  const replicas = [];
  for (let i = 0; i < n; i++) replicas.push(await startReplica({ pgUrl, table, token, stateless, extra }));
  const lb = await startHaproxy({ bin: haproxy, mode, ports: replicas.map((r) => r.port), token, dir });
  return {
    table,
    token,
    replicas,
    lb,
    dir,
    /** A replica SIGKILLed earlier comes back on its port (so HAProxy's server line finds it). */
    async restart(i) {
      const old = replicas[i];
      replicas[i] = await startReplica({ pgUrl, table, token, stateless, port: old.port, dir: old.dir, extra });
    },
    async stop() {
      await lb.stop();
      await Promise.all(replicas.map((r) => stopProc(r.proc)));
      await dropTable(pgUrl, table).catch(() => {});
      for (const d of [dir, ...replicas.map((r) => r.dir)]) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** One kill run: writers through the balancer, replica `victim` SIGKILLed after `killAfter` acks. */
export async function killRun(
  cluster,
  { pgUrl, run, clients = 8, perClient = 40, killAfter = 60, victim = 0, reconnectOn404 = false },
) {
  let killed = null;
  let ackedAtKill = 0;
  const stats = await writeLoad({
    url: cluster.lb.url,
    token: cluster.token,
    run,
    clients,
    perClient,
    reconnectOn404,
    onAck: (total) => {
      if (killed === null && total >= killAfter) {
        killed = performance.now();
        ackedAtKill = total;
        cluster.replicas[victim].proc.kill("SIGKILL");
      }
    },
  });
  const check = await verifyRun(pgUrl, cluster.table, run, stats.acked);
  return {
    run,
    acked: stats.acked.length,
    ackedAtKill,
    afterKill: stats.acked.length - ackedAtKill,
    ...check,
    attempts: stats.attempts,
    failures: stats.failures,
    timeouts: stats.timeouts,
    longestAttemptMs: Math.round(stats.longestAttemptMs),
    longestWriteMs: Math.round(stats.longestWriteMs),
    errors: Object.fromEntries(stats.errors),
  };
}

async function main() {
  const pgUrl = process.env.PATCHBAY_TEST_PG_URL;
  const haproxy = process.env.PATCHBAY_HAPROXY;
  if (!pgUrl || !haproxy) {
    console.error("needs PATCHBAY_TEST_PG_URL (.ci/postgres.sh) and PATCHBAY_HAPROXY (.ci/haproxy.sh)");
    process.exit(2);
  }
  const runs = Number(process.argv[2] ?? 3);
  const mode = process.argv[3] ?? "stateless";
  // The shared mode's runs and its p50 figure (`node bench/scale-out.mjs figure`) live there.
  if (mode === "shared" || process.argv[2] === "figure")
    return (await import("./scale-out-shared.mjs")).main(mode === "shared" ? ["kill", String(runs)] : []);
  const cluster = await startCluster({ pgUrl, haproxy, mode });
  const results = [];
  try {
    for (let r = 0; r < runs; r++) {
      const victim = r % cluster.replicas.length;
      const res = await killRun(cluster, {
        pgUrl,
        run: `bench${Date.now()}r${r}`,
        victim,
        reconnectOn404: mode === "stateful",
      });
      console.log(JSON.stringify({ mode, victim, ...res, lost: res.lost.length }));
      results.push(res);
      await cluster.restart(victim);
    }
  } finally {
    await cluster.stop();
  }
  const sum = (k) => results.reduce((n, r) => n + r[k], 0);
  console.log(
    `${mode}: ${runs} kill runs: acknowledged ${sum("acked")}, rows ${sum("rows")}, lost ${results.flatMap((r) => r.lost).length}, duplicates ${sum("duplicates")}, client timeouts ${sum("timeouts")}, longest attempt ${Math.max(...results.map((r) => r.longestAttemptMs))} ms, longest write (all attempts) ${Math.max(...results.map((r) => r.longestWriteMs))} ms`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
