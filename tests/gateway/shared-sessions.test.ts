/**
 * Sessions any replica serves (gateway.state.postgres, stateful HTTP): two or three real
 * `serve --http` replicas on one PostgreSQL, with requests sent to whichever replica the test
 * picks, as a round-robin balancer would. The HAProxy kill scenario is scale-out-shared.test.ts.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionStore } from "../../src/gateway/shared-sessions/store.js";
import { openSharedState, STATE_SCHEMA } from "../../src/gateway/state/postgres.js";
import { cleanupTempDirs } from "../helpers.js";
import type { HttpServe } from "./_gateway.js";
import { tcpProxy } from "./_pg-relay.js";
import { eventually, initialize, openStream, OTHER_TOKEN, post, startReplicas, updatedFor } from "./_shared.js";

const PG = process.env.PATCHBAY_TEST_PG_URL;
if (!PG) console.log("shared-session tests skipped: PATCHBAY_TEST_PG_URL is not set (run .ci/postgres.sh)");

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** What a replica's GET /status says of its HTTP sessions. */
async function sessionsOf(r: HttpServe): Promise<{ mode: string; open: number; evicted: number }> {
  const res = await fetch(`${r.base}/status`, { headers: { Authorization: `Bearer ${r.token}` } });
  return ((await res.json()) as { httpSessions: { mode: string; open: number; evicted: number } }).httpSessions;
}

describe.skipIf(!PG)("stateful sessions kept in gateway.state", () => {
  let replicas: HttpServe[];
  beforeAll(async () => {
    ({ replicas } = await startReplicas(PG!, 3));
  }, 120_000);
  afterAll(async () => {
    // A replica the test SIGKILLed has exited already.
    await Promise.all((replicas ?? []).filter((r) => r.proc.signalCode === null).map((r) => r.stop()));
    cleanupTempDirs();
  }, 60_000);

  it("a session opened on one replica is served by the others, with no new initialize", async () => {
    const [a, b, c] = replicas;
    const session = await initialize(a);
    for (const [i, r] of [b, c, a].entries()) {
      const list = await post(r, session, { jsonrpc: "2.0", id: 10 + i, method: "tools/list" });
      expect(list.status).toBe(200);
      expect(list.body?.result?.tools?.map((t) => t.name)).toEqual(["w__bump"]);
    }
    expect((await sessionsOf(b)).mode).toBe("shared");
  });

  it("another client presenting the session's id is refused on every replica; an unknown id is a 404", async () => {
    const [a, b] = replicas;
    const session = await initialize(a);
    for (const r of [a, b]) {
      const stolen = await post(r, session, { jsonrpc: "2.0", id: 2, method: "tools/list" }, OTHER_TOKEN);
      expect(stolen.status).toBe(403);
      expect(stolen.body?.error?.code).toBe("PB_ERR_SESSION_FORBIDDEN");
    }
    for (const bogus of ["00000000-0000-4000-8000-000000000000", "not-a-session", "x".repeat(5000)]) {
      const res = await post(b, bogus, { jsonrpc: "2.0", id: 3, method: "tools/list" });
      expect(res.status).toBe(404);
      expect(res.body?.error?.code).toBe(-32001);
    }
  });

  it("an initialize whose params would be stored past 64 KiB is refused with a 413 and leaves no session; a large one under it works", async () => {
    const [a, b] = replicas;
    const init = (name: string) => ({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1" } },
    });
    const big = await post(a, null, init("x".repeat(70_000)));
    expect(big.status).toBe(413);
    expect(big.session).toBeNull();
    expect(JSON.stringify(big.body)).toContain("at most 65536 bytes");
    const fine = await post(a, null, init("y".repeat(30_000)));
    expect(fine.status).toBe(200);
    expect((await post(b, fine.session, { jsonrpc: "2.0", id: 2, method: "tools/list" })).status).toBe(200);
  });

  it("DELETE on one replica ends the session on all of them", async () => {
    const [a, b, c] = replicas;
    const session = await initialize(a);
    expect((await post(c, session, { jsonrpc: "2.0", id: 2, method: "tools/list" })).status).toBe(200);
    const del = await fetch(b.url, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${b.token}`, "mcp-session-id": session },
    });
    expect(del.status).toBe(200);
    for (const r of [a, c])
      await eventually(
        async () => (await post(r, session, { jsonrpc: "2.0", id: 3, method: "tools/list" })).status === 404,
        10_000,
      );
  });

  it("a resource subscribed through one replica updates the client's stream held by another", async () => {
    const [a, b, c] = replicas;
    const session = await initialize(a);
    const stream = await openStream(a, session);
    try {
      expect(stream.status).toBe(200);
      const sub = await post(b, session, {
        jsonrpc: "2.0",
        id: 2,
        method: "resources/subscribe",
        params: { uri: "watch://cross" },
      });
      expect(sub.status).toBe(200);
      // The change is made through a third replica; B's instance, which holds the subscription, sees it.
      expect((await post(c, session, call(3, "w__bump", { name: "cross" }))).status).toBe(200);
      const got = await stream.next(updatedFor("watch://cross"));
      expect(Number(got.id)).toBeGreaterThan(0);
    } finally {
      stream.close();
    }
  });

  it("first requests of a session reaching a replica together make one copy there: the GET stream among them hears the session's notifications", async () => {
    const [a, b] = replicas;
    // A client's GET stream and its next POSTs leave at once and a balancer may send them all to a
    // replica that has not served the session yet. Each looks the session up in the database; had
    // the later lookups built copies of their own, the stream would sit on a copy nobody delivers to.
    for (let round = 0; round < 4; round++) {
      const session = await initialize(a);
      const list = (id: number) => post(b, session, { jsonrpc: "2.0", id, method: "tools/list" });
      const [stream, ...lists] = await Promise.all([openStream(b, session), list(2), list(3), list(4), list(5)]);
      try {
        expect(stream.status).toBe(200);
        for (const reply of lists) expect(reply.status).toBe(200);
        const uri = `watch://together-${round}`;
        const sub = await post(a, session, { jsonrpc: "2.0", id: 6, method: "resources/subscribe", params: { uri } });
        expect(sub.status).toBe(200);
        expect((await post(a, session, call(7, "w__bump", { name: `together-${round}` }))).status).toBe(200);
        await stream.next(updatedFor(uri));
      } finally {
        stream.close();
      }
    }
  });

  it("a client resuming its stream on another replica with Last-Event-ID gets what it missed, once, in order", async () => {
    const [a, b] = replicas;
    const session = await initialize(a);
    const first = await openStream(a, session);
    const priming = await first.next((e) => e.id !== null);
    expect(priming.data).toBe("");
    expect(priming.retry).not.toBeNull();
    first.close();
    await post(b, session, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "watch://r1" } });
    await post(b, session, { jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: { uri: "watch://r2" } });
    await post(a, session, call(4, "w__bump", { name: "r1" }));
    // Apart by several of the watcher's 50 ms polls, so it sees (and numbers) them in the order
    // made: two changes in one poll come in its own order, which is not what this test is about.
    await new Promise((r) => setTimeout(r, 300));
    await eventually(async () => {
      const r = await post(b, session, call(5, "w__bump", { name: "r2" }));
      return r.status === 200;
    }, 5_000);
    // Give the watcher (50 ms polls) time to see both changes and store them, with no stream open anywhere.
    await new Promise((r) => setTimeout(r, 500));
    const resumed = await openStream(b, session, priming.id!);
    try {
      await resumed.next(updatedFor("watch://r2"));
      const updates = resumed.events.filter((e) => e.data.includes("resources/updated"));
      expect(updates.map((e) => (e.data.includes("watch://r1") ? "r1" : "r2"))).toEqual(["r1", "r2"]);
      const ids = updates.map((e) => Number(e.id));
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      resumed.close();
    }
    const bad = await openStream(b, session, "../../etc/passwd");
    expect(bad.status).toBe(400);
  });

  it("a replica SIGKILLed while holding a subscription: a survivor carries it on and the client hears of changes", async () => {
    const [a, , c] = replicas;
    const session = await initialize(a);
    const stream = await openStream(a, session);
    try {
      await post(c, session, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "watch://k" } });
      c.proc.kill("SIGKILL");
      // The survivor that claims it says the resource may have changed (nobody watched it in between).
      await stream.next(updatedFor("watch://k"));
      const before = stream.events.length;
      await post(a, session, call(3, "w__bump", { name: "k" }));
      await stream.next((e) => stream.events.indexOf(e) >= before && updatedFor("watch://k")(e));
    } finally {
      stream.close();
    }
  });
});

describe.skipIf(!PG)("the session copies one replica keeps", () => {
  it("a replica keeps at most 256 busy session copies: a burst of new sessions beside 250 streams never closes one under its first request, the 256th busy copy turns new sessions away with a 503 another replica does not give, and idle copies give way once the streams end", async () => {
    // Replicas of its own, on an instance of its own: a copy another test left busy (a subscription
    // a killed replica held, claimed at start) would change the count.
    const { replicas } = await startReplicas(PG!, 2, "copies");
    const [a, b] = replicas;
    const initBody = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "burst", version: "1" } },
    };
    const works = async (r: HttpServe, session: string) => {
      const list = await post(r, session, { jsonrpc: "2.0", id: 2, method: "tools/list" });
      expect(list.status, JSON.stringify(list.body)).toBe(200);
    };
    const streams: Awaited<ReturnType<typeof openStream>>[] = [];
    const held: string[] = [];
    const hold = async (session: string) => {
      const stream = await openStream(a, session);
      streams.push(stream);
      expect(stream.status).toBe(200);
      held.push(session);
    };
    try {
      // Opened a few at a time, as clients would.
      for (let i = 0; i < 250; i += 10)
        await Promise.all(Array.from({ length: 10 }, async () => hold(await initialize(a))));
      // Twelve at once: past 256 copies, the burst's own are the only ones holding nothing. Each is
      // answered and then works everywhere, or is turned away by the bound; never closed under it.
      const burst = await Promise.all(Array.from({ length: 12 }, () => post(a, null, initBody)));
      expect(burst.map((r) => r.status).filter((s) => s !== 200 && s !== 503)).toEqual([]);
      const made = burst.filter((r) => r.status === 200).map((r) => r.session as string);
      expect(made.length).toBeGreaterThan(0);
      for (const session of made) for (const r of [a, b, a]) await works(r, session);
      for (const session of made.slice(0, 6)) await hold(session);
      while (held.length < 256) await hold(await initialize(a));
      const refused = await post(a, null, initBody);
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe("1");
      expect(refused.body?.error?.message).toContain("Too many busy sessions on this replica (256");
      await works(b, await initialize(b));
      for (const s of streams) s.close();
      // Closed streams leave copies that hold nothing: new sessions drop the oldest of them, back to the bound.
      await eventually(async () => {
        const more = await post(a, null, initBody);
        const { open, evicted } = await sessionsOf(a);
        return more.status === 200 && evicted > 0 && open <= 256;
      }, 15_000);
      // A dropped copy was only this replica's: its session goes on, rebuilt on its next request.
      await works(a, held[0]);
    } finally {
      for (const s of streams) s.close();
      await Promise.all(replicas.map((r) => r.stop()));
    }
  }, 120_000);
});

describe.skipIf(!PG)("stateful sessions while gateway.state's PostgreSQL is away", () => {
  it("the replica holding a session goes on serving it; another answers 503 with Retry-After, never 404; both serve it once the database is back", async () => {
    const relay = await tcpProxy(new URL(PG!));
    const through = new URL(PG!);
    through.port = String(relay.port);
    const { replicas } = await startReplicas(through.toString(), 2);
    const [a, b] = replicas;
    try {
      const session = await initialize(a);
      await relay.down();
      const held = await post(a, session, call(2, "w__bump", { name: "away" }));
      expect(held.status).toBe(200);
      const res = await post(b, session, { jsonrpc: "2.0", id: 3, method: "tools/list" });
      expect(res.status).toBe(503);
      expect(res.retryAfter).toBe("1");
      expect(res.body?.error?.code).toBe("PB_ERR_STATE_UNAVAILABLE");
      expect(res.body?.error?.message).not.toContain(new URL(PG!).password);
      await relay.up();
      await eventually(
        async () => (await post(b, session, { jsonrpc: "2.0", id: 4, method: "tools/list" })).status === 200,
      );
      expect((await post(a, session, { jsonrpc: "2.0", id: 5, method: "tools/list" })).status).toBe(200);
    } finally {
      await relay.down();
      await Promise.all(replicas.map((r) => r.stop()));
    }
  }, 120_000);
});

describe.skipIf(!PG)("a replica starting after every replica was down", () => {
  it("ends the sessions left idle past the limit before it would carry on their subscriptions", async () => {
    const state = await openSharedState(PG!);
    const stale = randomUUID();
    try {
      await SessionStore.open(state);
      const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "gone", version: "1" } };
      await state.pool.query(
        `INSERT INTO ${STATE_SCHEMA}.sessions (id, binding, client, init, seen)
         VALUES ($1, 'operator', 'operator', $2, now() - interval '2 hours')`,
        [stale, JSON.stringify(init)],
      );
      // Held by a replica long gone: without the ending, the new replica would claim it within a second.
      await state.pool.query(
        `INSERT INTO ${STATE_SCHEMA}.session_subscriptions (session_id, instance, uri, holder)
         VALUES ($1, 'mcpConnectors/stale', 'watch://stale', $2)`,
        [stale, randomUUID()],
      );
      // An instance of its own: subscriptions other tests left on theirs would be claimed too.
      const { replicas } = await startReplicas(PG!, 1, "stale");
      try {
        const left = await state.pool.query(`SELECT 1 FROM ${STATE_SCHEMA}.sessions WHERE id = $1`, [stale]);
        expect(left.rowCount).toBe(0);
        expect((await sessionsOf(replicas[0])).open).toBe(0);
      } finally {
        await replicas[0].stop();
      }
    } finally {
      await state.pool.query(`DELETE FROM ${STATE_SCHEMA}.sessions WHERE id = $1`, [stale]).catch(() => undefined);
      await state.close();
    }
  }, 60_000);
});
