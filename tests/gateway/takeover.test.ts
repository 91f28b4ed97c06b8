/**
 * The takeover of a gone replica's resource subscriptions (src/gateway/shared-sessions/takeover.ts):
 * what a claimant does when carrying one on fails. The rounds run against a store kept in memory
 * with the same rules as store.ts's statements (a claim takes the rows of gone or no holder; a
 * hand-back clears only the claimant's own), and those statements against the real PostgreSQL.
 * The whole failover, with real replicas behind HAProxy, is scale-out-shared.test.ts.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Caller } from "../../src/gateway/clients/caller.js";
import type { Gateway } from "../../src/gateway/gateway.js";
import type { SharedCopy } from "../../src/gateway/shared-sessions/copy.js";
import { SessionStore, type HeldSubscription, type SessionRecord } from "../../src/gateway/shared-sessions/store.js";
import { claimOrphans, type TakeoverDeps, type TakeoverStore } from "../../src/gateway/shared-sessions/takeover.js";
import { openSharedState, STATE_SCHEMA } from "../../src/gateway/state/postgres.js";

const PG = process.env.PATCHBAY_TEST_PG_URL;

interface Row extends HeldSubscription {
  holder: string | null;
}

function memoryStore(rows: Row[]): TakeoverStore {
  const record = (id: string): SessionRecord => ({ id, binding: "b", client: "c", init: {}, logLevel: null, seq: 0 });
  return {
    holders: async (me, instances) => [
      ...new Set(rows.filter((r) => r.holder !== me && instances.includes(r.instance)).map((r) => r.holder)),
    ],
    claim: async (me, gone, instances) => {
      const taken = rows.filter(
        (r) => (r.holder === null || gone.includes(r.holder)) && instances.includes(r.instance),
      );
      for (const r of taken) r.holder = me;
      return taken.map(({ session, instance, uri }) => ({ session, instance, uri }));
    },
    letGo: async (me, row) => {
      for (const r of rows) if (r.session === row.session && r.uri === row.uri && r.holder === me) r.holder = null;
    },
    get: async (id) => (rows.some((r) => r.session === id) ? record(id) : null),
    unsubscribed: async (session, uri) => {
      rows.splice(0, rows.length, ...rows.filter((r) => !(r.session === session && r.uri === uri)));
    },
  };
}

/** A claimant whose copies fail to build `failBuilds` times for `failing`, and whose hints may fail. */
function claimant(
  rows: Row[],
  opts: { failing?: string; failBuilds?: number; hintFails?: boolean; instances?: string[] } = {},
) {
  const held: string[] = [];
  const hinted: string[] = [];
  let builds = opts.failBuilds ?? 0;
  const deps: TakeoverDeps = {
    store: memoryStore(rows),
    replica: "alive",
    live: async () => new Set(["alive"]),
    callerFor: () => ({ id: "c" }) as unknown as Caller,
    end: async () => undefined,
    gateway: {
      instanceIds: () => opts.instances ?? ["w"],
      holdSubscription: async (_server: unknown, _instance: string, uri: string) => void held.push(uri),
    } as unknown as Gateway,
    copyOf: (record) => {
      if (record.id === opts.failing && builds-- > 0) throw new Error("the database did not answer in time");
      const server = {
        sendResourceUpdated: async ({ uri }: { uri: string }) => {
          if (opts.hintFails) throw new Error("the event could not be stored");
          hinted.push(uri);
        },
        sendLoggingMessage: async () => undefined,
      };
      return { id: record.id, server, held: new Set<string>() } as unknown as SharedCopy;
    },
  };
  return { deps, held, hinted };
}

const row = (session: string, holder: string | null): Row => ({
  session,
  instance: "w",
  uri: `file:///${session}`,
  holder,
});

describe("carrying on a gone replica's subscriptions", () => {
  it("hands back the one that failed on the way, carries on the others, and takes it up again next round", async () => {
    const rows = [row("s1", "dead"), row("s2", "dead")];
    const c = claimant(rows, { failing: "s1", failBuilds: 1 });
    await claimOrphans(c.deps);
    expect(c.held).toEqual(["file:///s2"]);
    expect(c.hinted).toEqual(["file:///s2"]);
    // Claimed and never held would make it nobody's: it is free for the next round instead.
    expect(rows.map((r) => r.holder)).toEqual([null, "alive"]);
    await claimOrphans(c.deps);
    expect(c.held).toEqual(["file:///s2", "file:///s1"]);
    expect(c.hinted).toEqual(["file:///s2", "file:///s1"]);
    expect(rows.map((r) => r.holder)).toEqual(["alive", "alive"]);
  });

  it("leaves a subscription on an instance it does not run to a replica that does", async () => {
    // Another configuration's gateway on the same database: it would refuse it and end it.
    const rows = [row("s1", "dead"), { ...row("s2", "dead"), instance: "other" }];
    const c = claimant(rows);
    await claimOrphans(c.deps);
    expect(c.held).toEqual(["file:///s1"]);
    expect(rows.map((r) => r.holder)).toEqual(["alive", "dead"]);
  });

  it("keeps a subscription it holds when only the client's hint could not be sent", async () => {
    const rows = [row("s1", "dead")];
    const c = claimant(rows, { hintFails: true });
    await claimOrphans(c.deps);
    expect(c.held).toEqual(["file:///s1"]);
    expect(rows).toEqual([row("s1", "alive")]);
  });
});

describe.skipIf(!PG)("the hand-back in PostgreSQL", () => {
  it("claims only on the claimant's instances, and hands back only its own hold of one subscription", async () => {
    const state = await openSharedState(PG!);
    const store = await SessionStore.open(state);
    const session = randomUUID();
    const me = `takeover-test-${randomUUID()}`;
    const other = `takeover-other-${randomUUID()}`;
    const dead = `takeover-dead-${randomUUID()}`;
    try {
      await store.create({ id: session, binding: "b", client: "c", init: {} });
      await store.subscribed(session, "w", "file:///a", me);
      await store.subscribed(session, "w", "file:///b", me);
      await store.subscribed(session, "x", "file:///a", other);
      await store.subscribed(session, "y", "file:///a", dead);
      await store.subscribed(session, "z", "file:///a", dead);
      // A unique instance name, so rows of other tests on this database are never taken.
      const mine = `y-${randomUUID()}`;
      await store.pool.query(
        `UPDATE ${STATE_SCHEMA}.session_subscriptions SET instance = $2 WHERE session_id = $1 AND instance = 'y'`,
        [session, mine],
      );
      expect(await store.claim(me, [dead], [mine])).toEqual([{ session, instance: mine, uri: "file:///a" }]);
      await store.letGo(me, { session, instance: "w", uri: "file:///a" });
      await store.letGo(me, { session, instance: "x", uri: "file:///a" });
      const { rows } = await store.pool.query<{ instance: string; uri: string; holder: string | null }>(
        `SELECT instance, uri, holder FROM ${STATE_SCHEMA}.session_subscriptions WHERE session_id = $1 ORDER BY instance, uri`,
        [session],
      );
      expect(rows).toEqual([
        { instance: "w", uri: "file:///a", holder: null },
        { instance: "w", uri: "file:///b", holder: me },
        { instance: "x", uri: "file:///a", holder: other },
        { instance: mine, uri: "file:///a", holder: me },
        { instance: "z", uri: "file:///a", holder: dead },
      ]);
    } finally {
      await store.end(session).catch(() => undefined);
      await state.close();
    }
  });
});
