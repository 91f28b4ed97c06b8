#!/usr/bin/env node
/**
 * Shared sessions behind plain round robin: stateful `serve --http` replicas that keep their
 * sessions in PostgreSQL (`gateway.state.postgres`), so any replica serves any session, behind
 * the HAProxy block of docs/deployment.md marked `# patchbay: shared`. Each replica runs its own
 * copy of bench/watched-resources-server.mjs on one shared folder. Used by
 * tests/gateway/scale-out-shared.test.ts; run alone:
 *
 *   node bench/scale-out-shared.mjs            seq tools/call p50, shared vs --stateless (a figure)
 *   node bench/scale-out-shared.mjs kill [3]   kill runs: writes, subscriptions, a SIGKILLed replica
 *
 * Both need PATCHBAY_TEST_PG_URL (.ci/postgres.sh) and PATCHBAY_HAPROXY (.ci/haproxy.sh).
 */
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { figure, percentile } from "./figures.mjs";
import { CALL_TIMEOUT_MS, KEY_META, verifyRun, WRITE_TOOL } from "./scale-out.mjs";
import { READ_TOOL, sleep, startSharedCluster, uriOf, watchingClient } from "./scale-out-shared-cluster.mjs";

export { READ_TOOL, startSharedCluster, uriOf } from "./scale-out-shared-cluster.mjs";
/** How long a client may wait for the update of a file it watches: far above a healthy delivery. */
export const NOTIFY_DEADLINE_MS = 15_000;

const is404 = (err) => err?.code === 404 || /\b404\b|-32001|Session not found/.test(String(err?.message ?? err));

/**
 * One kill run: `clients` SDK clients through the balancer, each initialized once and subscribed
 * to its own file, write with record ids or idempotency keys (retrying a failed attempt with the
 * same key); replica `victim` is SIGKILLed after `killAfter` acks, and `changeAfterMs` later (past
 * the takeover of its subscriptions) every client's file changes. Each client holds its last third
 * of writes until then, so writes go on while the updates travel. A 404 is counted and the client
 * re-initializes and subscribes again, so a regression shows up as a count, not as a hang.
 */
export async function sharedKillRun(
  cluster,
  { pgUrl, run, clients = 8, perClient = 30, killAfter = 40, victim = 0, changeAfterMs = 3_000 },
) {
  const holdAt = Math.floor((perClient * 2) / 3);
  if (killAfter > clients * holdAt)
    throw new Error(`killAfter ${killAfter} is past the ${clients * holdAt} writes before the change`);
  const names = Array.from({ length: clients }, (_, c) => `${run}-c${c}.txt`);
  for (const name of names) writeFileSync(path.join(cluster.watchedDir, name), "before");
  const seen = names.map(() => ({ updates: [], statuses: {}, errors: {}, initializes: 0 }));
  const stats = { acked: [], attempts: 0, failures: 0, timeouts: 0, longestAttemptMs: 0, longestWriteMs: 0 };
  const errors = {};
  let killedAt = null;
  let ackedAtKill = 0;
  let changedAt = null;
  let changed;
  const changeDone = new Promise((r) => (changed = r));
  const open = async (c) => {
    const client = await watchingClient(cluster.lb.url, cluster.token, seen[c]);
    await client.subscribeResource({ uri: uriOf(names[c]) }, { timeout: CALL_TIMEOUT_MS });
    return client;
  };
  const all = await Promise.all(names.map((_, c) => open(c)));
  let total = 0;
  await Promise.all(
    all.map(async (_, c) => {
      for (let i = 0; i < perClient; i++) {
        if (i === holdAt) await changeDone;
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
          let why = "";
          try {
            const result = await all[c].callTool(params, undefined, { timeout: CALL_TIMEOUT_MS });
            if (!result.isError) why = null;
            else why = String(result.content?.[0]?.text ?? "tool error").split("]")[0] + "]";
          } catch (err) {
            why = String(err?.message ?? err).slice(0, 240);
            if (/timed out/i.test(why)) stats.timeouts++;
            if (is404(err)) {
              await all[c].close().catch(() => {});
              all[c] = await open(c);
            }
          }
          stats.longestAttemptMs = Math.max(stats.longestAttemptMs, performance.now() - t0);
          if (why === null) break;
          stats.failures++;
          errors[why] = (errors[why] ?? 0) + 1;
          if (attempt >= 100) throw new Error(`write ${key} not acknowledged after 100 attempts (last: ${why})`);
          await sleep(Math.min(50 * attempt, 500));
        }
        stats.longestWriteMs = Math.max(stats.longestWriteMs, performance.now() - first);
        stats.acked.push(key);
        if (++total >= killAfter && killedAt === null) {
          killedAt = performance.now();
          ackedAtKill = total;
          cluster.replicas[victim].proc.kill("SIGKILL");
          setTimeout(() => {
            changedAt = performance.now();
            for (const name of names) writeFileSync(path.join(cluster.watchedDir, name), `changed ${run}`);
            changed();
          }, changeAfterMs);
        }
      }
    }),
  );
  if (killedAt === null)
    throw new Error(`killAfter ${killAfter} is past the run's ${total} writes: nothing was killed`);
  await changeDone;
  const after = (c) => seen[c].updates.find((u) => u.uri === uriOf(names[c]) && u.at >= changedAt);
  for (const t0 = performance.now(); performance.now() - t0 < NOTIFY_DEADLINE_MS; await sleep(50))
    if (names.every((_, c) => after(c))) break;
  const notifyMs = names.map((_, c) => (after(c) ? after(c).at - changedAt : Infinity));
  // Each session ends with its run (DELETE), as a client done with it would: left open until idle
  // expiry, the sessions of earlier runs and their subscriptions would pile up on the replicas that
  // carry them on, and `kill N` would measure a cluster ever fuller of dead clients.
  await Promise.all(all.map((client) => client.transport?.terminateSession().catch(() => {})));
  await Promise.all(all.map((client) => client.close().catch(() => {})));
  for (const name of names) rmSync(path.join(cluster.watchedDir, name), { force: true });
  const check = await verifyRun(pgUrl, cluster.table, run, stats.acked);
  const sum = (pick) => seen.reduce((n, s) => n + pick(s), 0);
  const merge = (pick) => {
    const out = {};
    for (const s of seen) for (const [k, v] of Object.entries(pick(s))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return {
    run,
    acked: stats.acked.length,
    ackedAtKill,
    afterKill: stats.acked.length - ackedAtKill,
    ...check,
    attempts: stats.attempts,
    failures: stats.failures,
    timeouts: stats.timeouts,
    reinitializations: sum((s) => s.initializes) - clients,
    notFound: sum((s) => Object.entries(s.statuses).reduce((n, [k, v]) => n + (k.endsWith(" 404") ? v : 0), 0)),
    clients,
    notified: notifyMs.filter(Number.isFinite).length,
    // For a client never told: every update it got (ms after the kill) and its own errors.
    missed: names.flatMap((name, c) =>
      Number.isFinite(notifyMs[c])
        ? []
        : [{ uri: uriOf(name), updatesMs: seen[c].updates.map((u) => Math.round(u.at - killedAt)), ...seen[c] }],
    ),
    // Updates between the kill and the change: the survivor that took a subscription over says so.
    takeoverUpdates: sum((s) => s.updates.filter((u) => u.at >= killedAt && u.at < changedAt).length),
    longestNotifyMs: Math.round(Math.max(...notifyMs)),
    longestAttemptMs: Math.round(stats.longestAttemptMs),
    longestWriteMs: Math.round(stats.longestWriteMs),
    errors,
    statuses: merge((s) => s.statuses),
    clientErrors: merge((s) => s.errors),
  };
}

/** `n` sequential calls of the read tool; each call's latency in ms. */
async function seqCalls(client, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const result = await client.callTool({ name: READ_TOOL, arguments: { id: "seq-probe" } });
    out.push(performance.now() - t0);
    if (result.isError) throw new Error(`${READ_TOOL} failed: ${JSON.stringify(result.content)}`);
  }
  return out;
}

/**
 * Sequential tools/call p50 through a shared cluster against a `--stateless` one, in the same run:
 * two replicas each, both behind HAProxy with their documented blocks (identical but for the
 * stickiness neither has), the same connectors, rounds interleaved. Through the balancer and not
 * straight to one replica, because what shared sessions cost is the request that lands on a
 * replica other than the one that opened the session, which only round robin produces.
 */
export async function seqFigure({ pgUrl, haproxy, rounds = 5, calls = 200 }) {
  const stateless = await startSharedCluster({ pgUrl, haproxy, mode: "stateless", n: 2 });
  try {
    const shared = await startSharedCluster({ pgUrl, haproxy, mode: "shared", n: 2 });
    try {
      const seen = { updates: [], statuses: {}, errors: {}, initializes: 0 };
      const clients = {
        stateless: await watchingClient(stateless.lb.url, stateless.token, seen),
        shared: await watchingClient(shared.lb.url, shared.token, seen),
      };
      const ms = { stateless: [], shared: [] };
      for (const m of ["stateless", "shared"]) await seqCalls(clients[m], 50); // warm up
      for (let r = 0; r < rounds; r++) {
        for (const m of r % 2 ? ["shared", "stateless"] : ["stateless", "shared"])
          ms[m].push(...(await seqCalls(clients[m], calls)));
      }
      await Promise.all(Object.values(clients).map((c) => c.close()));
      const p50 = { stateless: percentile(ms.stateless, 50), shared: percentile(ms.shared, 50) };
      figure(
        "seq tools/call p50, shared sessions (× --stateless)",
        p50.shared / p50.stateless,
        1.2,
        "×",
        `(stateless ${p50.stateless.toFixed(2)} ms, shared ${p50.shared.toFixed(2)} ms; 2 replicas each behind HAProxy, ${rounds}×${calls} calls)`,
      );
      return p50;
    } finally {
      await shared.stop();
    }
  } finally {
    await stateless.stop();
  }
}

export async function main(argv = process.argv.slice(2)) {
  const pgUrl = process.env.PATCHBAY_TEST_PG_URL;
  const haproxy = process.env.PATCHBAY_HAPROXY;
  if (!pgUrl || !haproxy) {
    // A topic of `npm run bench`: skipped, not failed, where the services are not set up.
    console.log("scale-out-shared: skipped (needs PATCHBAY_TEST_PG_URL from .ci/postgres.sh and PATCHBAY_HAPROXY)");
    return;
  }
  if (argv[0] !== "kill") return void (await seqFigure({ pgUrl, haproxy }));
  const runs = Number(argv[1] ?? 3);
  const cluster = await startSharedCluster({ pgUrl, haproxy });
  const results = [];
  try {
    for (let r = 0; r < runs; r++) {
      const victim = r % cluster.replicas.length;
      const res = await sharedKillRun(cluster, { pgUrl, run: `bench${Date.now()}r${r}`, victim });
      console.log(JSON.stringify({ mode: "shared", victim, ...res, lost: res.lost.length }));
      results.push(res);
      await cluster.restart(victim);
      // Back in HAProxy's rotation after two health checks a second apart (`rise 2`, `inter 1s`).
      await sleep(2_500);
    }
  } finally {
    await cluster.stop();
  }
  const sum = (k) => results.reduce((n, r) => n + r[k], 0);
  const max = (k) => Math.max(...results.map((r) => r[k]));
  console.log(
    `shared: ${runs} kill runs: acknowledged ${sum("acked")}, lost ${results.flatMap((r) => r.lost).length}, duplicates ${sum("duplicates")}, re-initializations ${sum("reinitializations")}, 404s ${sum("notFound")}, notified after the change ${sum("notified")}/${sum("clients")} (slowest ${max("longestNotifyMs")} ms), client timeouts ${sum("timeouts")}, longest attempt ${max("longestAttemptMs")} ms, longest write (all attempts) ${max("longestWriteMs")} ms`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
