/**
 * Past one machine: three `serve --http` replicas (each in its own folder, one postgres-memory
 * table) behind a real HAProxy running the exact configurations docs/deployment.md shows
 * (bench/scale-out.mjs extracts them and replaces only the bind and server lines).
 *
 * Stateless: plain round robin serves sessions; a replica SIGKILLed under eight writing clients
 * loses no acknowledged write, duplicates nothing when clients retry with their keys (record ids
 * for half the clients, idempotency keys for the other half), no call ends by the client's own
 * timeout, and the survivors keep serving. Stateful: the same under a kill (sessions on the dead
 * replica re-initialize on 404); stickiness on Mcp-Session-Id keeps every session on its
 * replica; a session whose replica died gets 404 / -32001 and a new one works.
 * The numbers (acks vs rows, duplicates, longest stall) are measured by bench/scale-out.mjs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, killRun, startCluster, WRITE_TOOL, type Cluster } from "../../bench/scale-out.mjs";

const PG = process.env.PATCHBAY_TEST_PG_URL;
const HAPROXY = process.env.PATCHBAY_HAPROXY;
const missing = !PG
  ? "PATCHBAY_TEST_PG_URL is not set (run .ci/postgres.sh)"
  : !HAPROXY
    ? "PATCHBAY_HAPROXY is not set (run .ci/haproxy.sh)"
    : null;
if (missing) console.log(`scale-out tests skipped: ${missing}`);

interface ReplicaStatus {
  httpSessions: { mode: string; open: number } | null;
  instances: { id: string; calls: number }[];
}

async function statusOf(port: number, token: string): Promise<ReplicaStatus> {
  const res = await fetch(`http://127.0.0.1:${port}/status`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as ReplicaStatus;
}

const callsOn = (s: ReplicaStatus) => s.instances.find((i) => i.id === "memoryStores/shared")?.calls ?? 0;

describe.skipIf(missing)("three `serve --http --stateless` replicas behind HAProxy (round robin)", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ pgUrl: PG!, haproxy: HAPROXY!, mode: "stateless" });
  }, 180_000);
  afterAll(async () => cluster?.stop(), 60_000);

  it("serves sessions through plain round robin: every call answered, by every replica", async () => {
    const clients = await Promise.all([0, 1, 2, 3].map(() => connect(cluster.lb.url, cluster.token)));
    try {
      for (const [c, client] of clients.entries()) {
        for (let i = 0; i < 15; i++) {
          const result = await client.callTool({
            name: WRITE_TOOL,
            arguments: { id: `rr-${c}-${i}`, summary: `rr-${c}-${i}` },
          });
          expect(result.isError, JSON.stringify(result)).toBeFalsy();
        }
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    const statuses = await Promise.all(cluster.replicas.map((r) => statusOf(r.port, cluster.token)));
    for (const s of statuses) {
      expect(s.httpSessions).toMatchObject({ mode: "stateless", open: 0 });
      expect(callsOn(s)).toBeGreaterThan(0);
    }
    expect(statuses.reduce((n, s) => n + callsOn(s), 0)).toBe(60);
  }, 120_000);

  it("a replica SIGKILLed under eight writing clients loses no acknowledged write and duplicates none; the survivors keep serving", async () => {
    const res = await killRun(cluster, {
      pgUrl: PG!,
      run: `t${Date.now()}`,
      clients: 8,
      perClient: 30,
      killAfter: 40,
      victim: 1,
    });
    console.log(`scale-out kill run: ${JSON.stringify({ ...res, lost: res.lost.length })}`);
    expect(cluster.replicas[1].alive()).toBe(false);
    expect(res.lost).toEqual([]);
    expect(res.duplicates).toBe(0);
    expect(res.rows).toBe(res.acked);
    expect(res.acked).toBe(240);
    // No call waited for the client's own timeout: every failure was prompt and retried.
    expect(res.timeouts).toBe(0);
    expect(res.afterKill).toBeGreaterThan(0);
    for (const i of [0, 2]) {
      const client = await connect(`http://127.0.0.1:${cluster.replicas[i].port}/mcp`, cluster.token);
      try {
        const result = await client.callTool({
          name: WRITE_TOOL,
          arguments: { id: `survivor-${i}`, summary: `survivor-${i}` },
        });
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
      } finally {
        await client.close();
      }
    }
  }, 300_000);
});

describe.skipIf(missing)("three stateful `serve --http` replicas behind HAProxy (sticky on Mcp-Session-Id)", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ pgUrl: PG!, haproxy: HAPROXY!, mode: "stateful" });
  }, 180_000);
  afterAll(async () => cluster?.stop(), 60_000);

  it("a replica SIGKILLed under eight writing sessions: no call waits for its timeout, sessions re-initialize on 404, nothing lost or duplicated", async () => {
    const res = await killRun(cluster, {
      pgUrl: PG!,
      run: `s${Date.now()}`,
      clients: 8,
      perClient: 30,
      killAfter: 40,
      victim: 1,
      reconnectOn404: true,
    });
    console.log(`scale-out stateful kill run: ${JSON.stringify({ ...res, lost: res.lost.length })}`);
    expect(res.lost).toEqual([]);
    expect(res.duplicates).toBe(0);
    expect(res.rows).toBe(res.acked);
    expect(res.acked).toBe(240);
    expect(res.timeouts).toBe(0);
    expect(res.afterKill).toBeGreaterThan(0);
  }, 300_000);

  it("keeps each session on the replica that created it; a session whose replica died gets 404 / -32001 and a new one works", async () => {
    // Round robin spreads new sessions: open them until the victim holds one of ours (sessions
    // of the test before, never closed by their clients, may be there too).
    const openOnVictim = async () => (await statusOf(cluster.replicas[0].port, cluster.token)).httpSessions!.open;
    const before = await openOnVictim();
    const clients = [];
    for (let i = 0; i < 9 && (await openOnVictim()) === before; i++)
      clients.push(await connect(cluster.lb.url, cluster.token));
    const onVictim = (await openOnVictim()) - before;
    expect(onVictim).toBeGreaterThan(0);
    for (const client of clients) {
      for (let i = 0; i < 10; i++) {
        const result = await client.callTool({ name: WRITE_TOOL, arguments: { id: `sticky-${i}`, summary: "sticky" } });
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
      }
    }
    cluster.replicas[0].proc.kill("SIGKILL");
    await new Promise((r) => cluster.replicas[0].proc.once("exit", r));
    const outcomes = await Promise.all(
      clients.map((c) =>
        c.callTool({ name: WRITE_TOOL, arguments: { id: "after", summary: "after" } }).then(
          () => "ok",
          (err: { code?: number; message?: string }) => `${err.code} ${err.message}`,
        ),
      ),
    );
    const gone = outcomes.filter((o) => o !== "ok");
    expect(gone.length).toBe(onVictim);
    for (const o of gone) expect(o).toMatch(/^404 .*-32001/);
    const fresh = await connect(cluster.lb.url, cluster.token);
    try {
      const result = await fresh.callTool({ name: WRITE_TOOL, arguments: { id: "fresh", summary: "fresh" } });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
    } finally {
      await fresh.close();
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    }
  }, 240_000);
});
