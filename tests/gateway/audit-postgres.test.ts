/**
 * The audit trail in PostgreSQL: two `serve --http` processes (two folders, one database, started
 * at once so both create the table together) record their calls in one table, and
 * `patchbay audit` reads both, told apart by replica. The connection string is a secret and is
 * printed nowhere. Needs PATCHBAY_TEST_PG_URL (.ci/postgres.sh); skipped with the reason without.
 * A database that goes away while serving costs no call and is said once, coded.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, runCli } from "../helpers.js";
import { startHttpServe } from "./_gateway.js";
import { tcpProxy } from "./_pg-relay.js";
import { ALPHA, auditClients, auditConfig, auditLines, BETA, OPERATOR, type Line } from "./_audit.js";

const PG = process.env.PATCHBAY_TEST_PG_URL;
const missing = PG ? null : "PATCHBAY_TEST_PG_URL is not set (run .ci/postgres.sh)";
if (missing) console.log(`audit PostgreSQL tests skipped: ${missing}`);

// This run's own client ids: the table outlives test runs, and rows of earlier runs must not count.
const run = randomBytes(4).toString("hex");
const A = `alpha-${run}`;
const B = `beta-${run}`;
const G = `gamma-${run}`;
const D = `delta-${run}`;

afterAll(async () => {
  cleanupTempDirs();
  if (!PG) return;
  const pool = new pg.Pool({ connectionString: PG, max: 1 });
  await pool.query("DELETE FROM patchbay_gateway_audit WHERE client = ANY($1)", [[A, B, G, D]]).catch(() => undefined);
  await pool.end();
});

describe.skipIf(missing)("the audit trail in gateway.state's PostgreSQL", () => {
  it("holds both replicas' calls, and `patchbay audit` reads them across replicas", async () => {
    const env = { PATCHBAY_TOKEN: OPERATOR, AUDIT_PG: PG! };
    const gateway = { state: { postgres: "${AUDIT_PG}" }, clients: auditClients(A, B) };
    const one = auditConfig(gateway);
    const two = auditConfig(gateway);
    const [s1, s2] = await Promise.all([startHttpServe(one.file, env), startHttpServe(two.file, env)]);
    try {
      const a1 = await s1.connect(ALPHA);
      const a2 = await s2.connect(ALPHA);
      const b2 = await s2.connect(BETA);
      await a1.callTool({ name: "gw__echo", arguments: { text: "on one" } });
      await a2.callTool({ name: "gw__echo", arguments: { text: "on two" } });
      await a2.readResource({ uri: "plain://one" });
      await b2.callTool({ name: "gw__whoami", arguments: {} });
      await Promise.all([a1.close(), a2.close(), b2.close()]);
    } finally {
      expect(await s1.stop()).toBe(0);
      expect(await s2.stop()).toBe(0);
    }
    for (const s of [s1, s2]) {
      expect(s.stderr()).not.toContain(PG!);
      expect(s.stderr()).not.toContain("PB_ERR_AUDIT_WRITE");
    }

    const a = await runCli(["audit", "--client", A, "--since", "10m", "--json", "--config", one.file], {
      cwd: one.dir,
      env: { AUDIT_PG: PG! },
    });
    expect(a.stderr).toBe("");
    expect(a.code).toBe(0);
    const rows = (JSON.parse(a.stdout) as { entries: (Line & { replica: string })[] }).entries;
    expect(rows.map((r) => `${r.kind} ${r.name}`)).toEqual(["tool gw__echo", "tool gw__echo", "resource plain://one"]);
    expect(rows.every((r) => r.client === A)).toBe(true);
    // Two processes wrote them: two replicas in one trail.
    expect(new Set(rows.map((r) => r.replica)).size).toBe(2);
    expect(rows[0]).toMatchObject({ instance: "mcpConnectors/gw", outcome: "ok", idempotencyKey: null });
    expect(typeof rows[0].session).toBe("string");

    // From the other folder, without a filter on client: beta's call is there too.
    const all = await runCli(["audit", "--since", "10m", "--config", two.file], {
      cwd: two.dir,
      env: { AUDIT_PG: PG! },
    });
    expect(all.code).toBe(0);
    expect(all.stdout).toContain("REPLICA");
    expect(all.stdout).toContain(B);
    expect(all.stdout + all.stderr).not.toContain(PG!);
  });
});

describe("the audit trail when gateway.state's PostgreSQL does not answer", () => {
  it.skipIf(missing)(
    "serves every call when the database goes away, says so once with its code, and prints no part of the connection string",
    async () => {
      const relay = await tcpProxy(new URL(PG!));
      const password = new URL(PG!).password;
      const through = new URL(PG!);
      through.port = String(relay.port);
      const env = { PATCHBAY_TOKEN: OPERATOR, AUDIT_PG: through.toString() };
      const { dir, file } = auditConfig({ state: { postgres: "${AUDIT_PG}" } });
      const s = await startHttpServe(file, env);
      const alpha = await s.connect(ALPHA);
      try {
        // Up at start (serve refuses to start without its gateway.state), gone for the calls.
        await relay.down();
        for (let i = 0; i < 3; i++)
          expect((await alpha.callTool({ name: "gw__echo", arguments: { text: `${i}` } })).isError).not.toBe(true);
      } finally {
        await alpha.close();
        expect(await s.stop()).toBe(0);
      }
      const err = s.stderr();
      expect(err).not.toContain(password);
      expect(err).not.toContain("postgres://");
      expect(err).toMatch(
        /\[PB_ERR_AUDIT_WRITE\] The audit trail could not be written to the PostgreSQL of gateway.state/,
      );
      expect(err).toMatch(/lost 0 entries in \S+ and 3 in PostgreSQL/);
      // The file still has every call.
      expect(auditLines(dir).lines).toHaveLength(3);
      const cli = await runCli(["audit", "--config", file], { cwd: dir, env: { AUDIT_PG: env.AUDIT_PG } });
      expect(cli.code).toBe(1);
      expect(cli.stderr).toContain("PB_ERR_AUDIT_UNREADABLE");
      expect(cli.stderr).not.toContain(password);
    },
    60_000,
  );

  it.skipIf(missing)(
    "keeps what it could not write while the database was away and writes it once it is back, in order",
    async () => {
      const relay = await tcpProxy(new URL(PG!));
      const through = new URL(PG!);
      through.port = String(relay.port);
      const env = { PATCHBAY_TOKEN: OPERATOR, AUDIT_PG: through.toString() };
      const { file } = auditConfig({ state: { postgres: "${AUDIT_PG}" }, clients: auditClients(G, D) });
      const s = await startHttpServe(file, env);
      const gamma = await s.connect(ALPHA);
      const pool = new pg.Pool({ connectionString: PG, max: 1 });
      const stored = async () =>
        (await pool.query("SELECT name FROM patchbay_gateway_audit WHERE client = $1 ORDER BY time, id", [G])).rows.map(
          (r: { name: string }) => r.name,
        );
      try {
        // The first call is made while the database is up, and cut off before its batch is written.
        await gamma.callTool({ name: "gw__echo", arguments: { text: "before" } });
        await relay.down();
        for (let i = 0; i < 3; i++) await gamma.callTool({ name: "gw__echo", arguments: { text: `${i}` } });
        // Past the batch delay (200 ms): the batch holding all four is tried while the database is away.
        await new Promise((r) => setTimeout(r, 800));
        expect(await stored()).toEqual([]);
        await relay.up();
        const until = Date.now() + 20_000;
        while ((await stored()).length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
        expect(await stored()).toEqual(["gw__echo", "gw__echo", "gw__echo", "gw__echo"]);
      } finally {
        await gamma.close();
        await pool.end();
        expect(await s.stop()).toBe(0);
        await relay.down();
      }
      expect(s.stderr()).toMatch(/\[PB_ERR_AUDIT_WRITE\] The audit trail could not be written/);
      expect(s.stderr()).not.toMatch(/lost \d+ entries/);
    },
    60_000,
  );
});
