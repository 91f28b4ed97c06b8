/**
 * The PostgreSQL quota store against a real database (.ci/postgres.sh): the same counts and
 * refusals as in memory, one slot given back once, several stores (as replicas) sharing one
 * client's count, migrations safe when replicas start at once, and an unreachable database
 * refused at open without its password in the message.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openQuotas, type Quotas } from "../../src/gateway/clients/quota.js";
import type { Admission } from "../../src/gateway/clients/gate.js";
import { PostgresQuotaStore } from "../../src/gateway/clients/quota-postgres.js";
import { openSharedState, type SharedState } from "../../src/gateway/state/postgres.js";

const PG = process.env.PATCHBAY_TEST_PG_URL;
if (!PG) console.log("quota-postgres tests skipped: PATCHBAY_TEST_PG_URL is not set (run .ci/postgres.sh)");

// The test cluster is shared: every client id is this run's own.
const run = `q${process.pid}-${Date.now()}`;
const opened: Quotas[] = [];
afterAll(async () => {
  await Promise.all(opened.map((q) => q.close()));
});

async function open(): Promise<Quotas> {
  const q = await openQuotas({ postgres: PG! });
  opened.push(q);
  return q;
}

const describeOf = (a: Admission) => (a.ok ? "ok" : a.code);

describe.skipIf(!PG)("PostgresQuotaStore", () => {
  it("prepares its table when several replicas start at once", async () => {
    const all = await Promise.all([open(), open(), open()]);
    expect(all.map((q) => q.where)).toEqual(["postgres", "postgres", "postgres"]);
  });

  it("admits callsPerMinute calls across stores and refuses the next with the wait", async () => {
    const [a, b, c] = await Promise.all([open(), open(), open()]);
    const stores = [a, b, c];
    const id = `${run}-rate`;
    const limits = { callsPerMinute: 5, concurrent: null };
    const answers: Admission[] = [];
    for (let i = 0; i < 7; i++) answers.push(await stores[i % 3].store.admit(id, limits));
    expect(answers.map(describeOf)).toEqual([
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "PB_ERR_CLIENT_QUOTA",
      "PB_ERR_CLIENT_QUOTA",
    ]);
    const refused = answers[5];
    if (refused.ok) throw new Error("admitted");
    expect(refused.message).toContain(`Client "${id}"`);
    expect(refused.message).toContain("5 calls per minute");
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(120_000);
    expect((await a.store.admit(`${run}-other`, limits)).ok).toBe(true);
  });

  it("holds concurrent slots across stores and gives each back exactly once", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const id = `${run}-conc`;
    const limits = { callsPerMinute: null, concurrent: 2 };
    const first = await a.store.admit(id, limits);
    const second = await b.store.admit(id, limits);
    const third = await a.store.admit(id, limits);
    expect([first, second, third].map(describeOf)).toEqual(["ok", "ok", "PB_ERR_CLIENT_QUOTA"]);
    if (third.ok || !first.ok || !second.ok) throw new Error("unexpected admission");
    expect(third.message).toContain("2 calls in flight");
    first.release();
    first.release();
    first.release();
    // The release is sent without waiting: poll until it landed.
    let again = await b.store.admit(id, limits);
    for (let i = 0; i < 50 && !again.ok; i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await b.store.admit(id, limits);
    }
    expect(again.ok).toBe(true);
    // A second release of the first slot did not free another one.
    expect(describeOf(await a.store.admit(id, limits))).toBe("PB_ERR_CLIENT_QUOTA");
    second.release();
    if (again.ok) again.release();
  });

  it("renews the leases of calls still running, and lets those of a store that stopped renewing lapse", async () => {
    const states: SharedState[] = await Promise.all([openSharedState(PG!), openSharedState(PG!)]);
    const lease = 600;
    const [holder, other] = await Promise.all(states.map((s) => PostgresQuotaStore.open(s, lease)));
    const id = `${run}-renew`;
    const limits = { callsPerMinute: null, concurrent: 1 };
    try {
      const running = await holder.admit(id, limits);
      expect(running.ok).toBe(true);
      // Three lifetimes later the call still runs: its lease was renewed, the slot still taken.
      await new Promise((r) => setTimeout(r, 3 * lease));
      expect(describeOf(await other.admit(id, limits))).toBe("PB_ERR_CLIENT_QUOTA");
      // The holder stops renewing (as a replica that died): within a lifetime or two the slot is free.
      // The holder loses its database (as a replica that died): its renewals stop landing.
      await states[0].close();
      const stopped = Date.now();
      let freed = await other.admit(id, limits);
      while (!freed.ok && Date.now() - stopped < 5 * lease) {
        await new Promise((r) => setTimeout(r, 50));
        freed = await other.admit(id, limits);
      }
      expect(freed.ok).toBe(true);
      if (freed.ok) freed.release();
    } finally {
      await holder.close();
      await other.close();
      await Promise.all(states.map((s) => s.close()));
    }
  });

  it("gives back the slots it holds when it closes", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const id = `${run}-close`;
    const limits = { callsPerMinute: null, concurrent: 1 };
    expect((await a.store.admit(id, limits)).ok).toBe(true);
    expect(describeOf(await b.store.admit(id, limits))).toBe("PB_ERR_CLIENT_QUOTA");
    await a.close();
    expect((await b.store.admit(id, limits)).ok).toBe(true);
  });

  it("refuses to open an unreachable database with PB_ERR_STATE_UNAVAILABLE, without the password", async () => {
    const err = await openQuotas({ postgres: "postgres://patchbay:hunter2-secret@127.0.0.1:1/nowhere" }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(err?.code).toBe("PB_ERR_STATE_UNAVAILABLE");
    expect(err?.message).toContain("gateway.state.postgres");
    expect(err?.message).not.toContain("hunter2");
    expect(JSON.stringify(err)).not.toContain("hunter2");
  });
});
