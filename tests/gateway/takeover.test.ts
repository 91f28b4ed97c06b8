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
import {
  CHANNEL,
  SessionStore,
  type HeldSubscription,
  type SessionRecord,
} from "../../src/gateway/shared-sessions/store.js";
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
      await store.create({ id: session, binding: "b", client: "c", init: {} }, 64);
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

  it("keeps a caller's most recently used sessions and ends the rest, announced, leaving other callers' alone", async () => {
    const state = await openSharedState(PG!);
    const store = await SessionStore.open(state);
    const listener = await state.pool.connect();
    const ended: string[] = [];
    listener.on("notification", (n) => n.payload?.startsWith("x ") && ended.push(n.payload.slice(2)));
    await listener.query(`LISTEN ${CHANNEL}`);
    const binding = `client:bound-${randomUUID()}`;
    const other = `client:other-${randomUUID()}`;
    const ids: string[] = Array.from({ length: 5 }, () => randomUUID());
    const theirs = randomUUID();
    try {
      await store.create({ id: theirs, binding: other, client: "other", init: {} }, 3);
      for (const [i, id] of ids.slice(0, 3).entries()) {
        await store.create({ id, binding, client: "bound", init: {} }, 3);
        // Distinct use times, oldest first: the order the bound goes by.
        await store.pool.query(
          `UPDATE ${STATE_SCHEMA}.sessions SET seen = now() - make_interval(secs => $2) WHERE id = $1`,
          [id, 100 - i],
        );
      }
      // The oldest was used again: the two next oldest end in turn as two more are opened.
      await store.touch([ids[0]]);
      await store.create({ id: ids[3], binding, client: "bound", init: {} }, 3);
      await store.create({ id: ids[4], binding, client: "bound", init: {} }, 3);
      const { rows } = await store.pool.query<{ id: string }>(
        `SELECT id FROM ${STATE_SCHEMA}.sessions WHERE binding = $1`,
        [binding],
      );
      expect(new Set(rows.map((r) => r.id))).toEqual(new Set([ids[0], ids[3], ids[4]]));
      expect(await store.exists(theirs)).toBe(true);
      await expect
        .poll(() => ended.filter((id) => ids.includes(id) || id === theirs).sort())
        .toEqual([ids[1], ids[2]].sort());
    } finally {
      listener.release();
      await store.pool.query(`DELETE FROM ${STATE_SCHEMA}.sessions WHERE binding = ANY($1)`, [[binding, other]]);
      await state.close();
    }
  });
});
