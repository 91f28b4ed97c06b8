/**
 * Sessions any replica can serve: three stateful `serve --http` replicas sharing
 * `gateway.state.postgres`, behind a real HAProxy running the `# patchbay: shared` block of
 * docs/deployment.md (plain round robin, nothing sticky). Each replica runs its own copy of
 * bench/watched-resources-server.mjs on one shared folder.
 *
 * A session opened on one replica is served by the others, stays its opener's (another client's
 * token gets 403), ends everywhere when deleted on one, and its GET stream resumes on another
 * replica with Last-Event-ID. Under a SIGKILLed replica (three runs, a different victim each),
 * eight SDK clients with the transport's default options lose no acknowledged write, duplicate
 * none, never see a 404 or re-initialize, none of their calls hangs, and each is told of the
 * change of the file it subscribed to, wherever its subscription and its GET stream were.
 * The numbers are measured by bench/scale-out-shared.mjs.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  READ_TOOL,
  type SharedCluster,
  sharedKillRun,
  startSharedCluster,
  uriOf,
} from "../../bench/scale-out-shared.mjs";
import { openSession, openStream, request, rpc, until, updatedFor } from "./_shared-sessions.js";

const PG = process.env.PATCHBAY_TEST_PG_URL;
const HAPROXY = process.env.PATCHBAY_HAPROXY;
const missing = !PG
  ? "PATCHBAY_TEST_PG_URL is not set (run .ci/postgres.sh)"
  : !HAPROXY
    ? "PATCHBAY_HAPROXY is not set (run .ci/haproxy.sh)"
    : null;
if (missing) console.log(`scale-out shared-sessions tests skipped: ${missing}`);

/** Far above a healthy stall; a call or a notification past it hung. Never a speed goal. */
const HUNG_MS = 15_000;

describe.skipIf(missing)("three stateful replicas sharing their sessions in PostgreSQL, behind round robin", () => {
  let cluster: SharedCluster;
  const base = (i: number) => `http://127.0.0.1:${cluster.replicas[i].port}`;
  beforeAll(async () => {
    cluster = await startSharedCluster({ pgUrl: PG!, haproxy: HAPROXY! });
  }, 180_000);
  afterAll(async () => cluster?.stop(), 60_000);

  it("a session opened on replica 1 is served by replicas 2 and 3; another client's token is refused with 403 on each; DELETE on one ends it on all", async () => {
    const { a, b } = cluster.clientTokens;
    const sid = await openSession(base(0), a);
    for (const i of [1, 2, 0]) {
      const reply = await request(
        base(i),
        a,
        "POST",
        rpc("tools/call", { name: READ_TOOL, arguments: { id: "x" } }),
        sid,
      );
      expect(reply.status, `replica ${i + 1}: ${reply.text}`).toBe(200);
      expect(reply.messages[0], `replica ${i + 1}`).toMatchObject({ result: { content: expect.any(Array) } });
      expect((reply.messages[0] as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    }
    for (const i of [0, 1, 2]) {
      const stolen = await request(base(i), b, "POST", rpc("tools/list"), sid);
      expect(stolen.status, `replica ${i + 1}: ${stolen.text}`).toBe(403);
      expect(stolen.text).toContain("PB_ERR_SESSION_FORBIDDEN");
    }
    // The refusals did not end it: its opener still has it.
    expect((await request(base(2), a, "POST", rpc("tools/list"), sid)).status).toBe(200);
    const ended = await request(base(1), a, "DELETE", undefined, sid);
    expect(ended.status, ended.text).toBeLessThan(300);
    for (const i of [0, 1, 2]) {
      const after = await request(base(i), a, "POST", rpc("tools/list"), sid);
      expect(after.status, `replica ${i + 1}: ${after.text}`).toBe(404);
      expect(after.text).toContain("-32001");
    }
  }, 60_000);

  it("a GET stream closed on replica 1 resumes on replica 2 with Last-Event-ID and gets the update it missed", async () => {
    const { a } = cluster.clientTokens;
    const name = `lei-${Date.now()}.txt`;
    const uri = uriOf(name);
    writeFileSync(path.join(cluster.watchedDir, name), "before");
    const sid = await openSession(base(0), a);
    // A witness session subscribed on the same replica, its stream on replica 3: once it has the
    // update, the update was also sent to the first session, whose stream is closed by then.
    const witness = await openSession(base(2), a);
    for (const s of [sid, witness]) {
      const sub = await request(base(0), a, "POST", rpc("resources/subscribe", { uri }), s);
      expect(sub.status, sub.text).toBe(200);
      expect(sub.messages.find((m) => "result" in m || "error" in m)).toMatchObject({ result: {} });
    }
    const first = await openStream(base(0), a, sid);
    expect(first.status, first.text).toBe(200);
    // The priming event: an id to resume from, and how soon to reconnect (`retry:`), before any message.
    let retry: number | undefined;
    const priming = await until(
      first,
      (e) => {
        retry ??= e.retry;
        return e.id !== undefined;
      },
      HUNG_MS,
    );
    first.close();
    expect(priming?.id, "an event id on the new stream").toBeTruthy();
    expect(priming?.data, "the id comes before any message").toBe("");
    expect(retry, "a retry delay by then").toBeGreaterThan(0);
    const watching = await openStream(base(2), a, witness);
    expect(watching.status, watching.text).toBe(200);
    writeFileSync(path.join(cluster.watchedDir, name), "after");
    expect(await until(watching, updatedFor(uri), HUNG_MS), "the witness's update").not.toBeNull();
    watching.close();
    const resumed = await openStream(base(1), a, sid, priming!.id);
    expect(resumed.status, resumed.text).toBe(200);
    const missed = await until(resumed, updatedFor(uri), HUNG_MS);
    resumed.close();
    expect(missed, "the update sent while no stream was open, replayed on another replica").not.toBeNull();
    expect(missed!.id).toBeTruthy();
    for (const s of [sid, witness]) await request(base(0), a, "DELETE", undefined, s);
  }, 60_000);

  it("a replica SIGKILLed under eight subscribed, writing SDK clients (three runs): nothing lost or duplicated, no 404, no re-initialize, no hang, every client told of its file's change", async () => {
    const results = [];
    for (let r = 0; r < 3; r++) {
      const victim = r;
      const res = await sharedKillRun(cluster, {
        pgUrl: PG!,
        run: `sh${Date.now()}r${r}`,
        clients: 8,
        perClient: 30,
        killAfter: 40,
        victim,
      });
      console.log(`shared kill run ${r + 1}: ${JSON.stringify({ victim, ...res, lost: res.lost.length })}`);
      results.push(res);
      expect(cluster.replicas[victim].alive()).toBe(false);
      await cluster.restart(victim);
      // Back in HAProxy's rotation after two health checks a second apart (`rise 2`, `inter 1s`).
      await new Promise((r) => setTimeout(r, 2_500));
    }
    for (const res of results) {
      expect(res.lost).toEqual([]);
      expect(res.duplicates).toBe(0);
      expect(res.rows).toBe(res.acked);
      expect(res.acked).toBe(240);
      expect(res.afterKill).toBeGreaterThan(0);
      expect(res.notFound, JSON.stringify(res.statuses)).toBe(0);
      expect(res.reinitializations).toBe(0);
      expect(res.notified, JSON.stringify(res.missed)).toBe(8);
      expect(res.timeouts).toBe(0);
      expect(res.longestWriteMs).toBeLessThan(HUNG_MS);
    }
  }, 600_000);
});
