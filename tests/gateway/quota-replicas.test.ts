/**
 * Quotas shared by three real `serve --http` replicas on one PostgreSQL (gateway.state), calls
 * spread round robin by the test: a client is held to its calls per minute within 10%; the
 * concurrent slots a SIGKILLed replica held lapse with their leases; PostgreSQL going away during
 * calls refuses them with PB_ERR_STATE_UNAVAILABLE (fail closed) and the server serves again once
 * it is back.
 */
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { LEASE_MS } from "../../src/gateway/clients/quota-postgres.js";
import { cleanupTempDirs } from "../helpers.js";
import { gatewayConfig, startHttpServe, type HttpServe } from "./_gateway.js";
import { tcpProxy } from "./_pg-relay.js";

const PG = process.env.PATCHBAY_TEST_PG_URL;
if (!PG) console.log("quota-replicas tests skipped: PATCHBAY_TEST_PG_URL is not set (run .ci/postgres.sh)");

const OPERATOR = "operator-token-0123456789";
const TOKEN = "quota-client-token-0123456789";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
// The test cluster is shared: client ids are this run's own, so counts from other runs never mix in.
const run = `q${process.pid}-${Date.now()}`;
const served: HttpServe[] = [];

afterAll(async () => {
  // A SIGKILLed replica has exited already (its exitCode stays null: it ended by a signal).
  await Promise.all(served.filter((s) => s.proc.signalCode === null).map((s) => s.stop()));
  cleanupTempDirs();
});

async function replicas(n: number, id: string, limits: object, url = PG!, args: string[] = []): Promise<HttpServe[]> {
  const clients = { [id]: { tokenSha256: sha(TOKEN), expose: { "mcpConnectors/gw": ["echo", "slow"] }, limits } };
  const started = await Promise.all(
    Array.from({ length: n }, () =>
      startHttpServe(
        gatewayConfig({ gateway: { clients, state: { postgres: "${STATE_URL}" } } }).file,
        {
          PATCHBAY_TOKEN: OPERATOR,
          STATE_URL: url,
        },
        args,
      ),
    ),
  );
  served.push(...started);
  return started;
}

async function outcome(p: Promise<unknown>): Promise<"ok" | McpError> {
  return p.then(
    () => "ok" as const,
    (e: unknown) => {
      if (e instanceof McpError) return e;
      throw e;
    },
  );
}

const echo = (c: Client) => c.callTool({ name: "gw__echo", arguments: { text: "hi" } });
const codeOf = (o: "ok" | McpError) => (o === "ok" ? "ok" : (o.data as { code: string }).code);

describe.skipIf(!PG)("quotas shared by three serve --http replicas on one PostgreSQL", () => {
  it("holds a client to its calls per minute within 10% across stateless replicas", async () => {
    const id = `${run}-rate`;
    const limit = 30;
    // Stateless, as replicas behind plain round robin run (docs/deployment.md).
    const nodes = await replicas(3, id, { callsPerMinute: limit }, PG!, ["--stateless"]);
    const sessions = await Promise.all(nodes.map((s) => s.connect(TOKEN)));
    try {
      // Twelve at a time, four on each replica at once: the replicas race for the same row.
      const codes: string[] = [];
      for (let batch = 0; batch < (2 * limit) / 12; batch++) {
        const at = codes.length;
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) => outcome(echo(sessions[(at + i) % 3])).then(codeOf)),
        );
        codes.push(...answers);
      }
      const admitted = codes.filter((c) => c === "ok").length;
      console.log(`shared quota: ${admitted} of ${codes.length} calls admitted at ${limit} per minute`);
      expect(admitted).toBeGreaterThanOrEqual(limit * 0.9);
      expect(admitted).toBeLessThanOrEqual(limit * 1.1);
      expect(codes.filter((c) => c !== "ok").every((c) => c === "PB_ERR_CLIENT_QUOTA")).toBe(true);
      // Every replica admitted some: the count is shared, not each replica's own.
      for (let r = 0; r < 3; r++) expect(codes.filter((c, i) => i % 3 === r && c === "ok").length).toBeGreaterThan(0);
    } finally {
      await Promise.all(sessions.map((c) => c.close()));
    }
  }, 90_000);

  it("frees the concurrent slots of a SIGKILLed replica when their leases lapse", async () => {
    const id = `${run}-kill`;
    const [victim, survivor] = await replicas(2, id, { concurrent: 2 });
    const held = await victim.connect(TOKEN);
    const other = await survivor.connect(TOKEN);
    try {
      // Both replicas booted first, so the slow calls are admitted at once.
      expect([await outcome(echo(held)), await outcome(echo(other))]).toEqual(["ok", "ok"]);
      const hold = (): void =>
        void held.callTool({ name: "gw__slow", arguments: { ms: 2_500 } }, undefined, { timeout: 10_000 }).then(
          () => undefined,
          // A slow call that raced one of the survivor's echoes for the last slot tries again.
          (e: unknown) => (e instanceof McpError && codeOf(e) === "PB_ERR_CLIENT_QUOTA" ? hold() : undefined),
        );
      hold();
      hold();
      // Until both slow calls hold their leases, the survivor's echo still fits.
      let o = await outcome(echo(other));
      for (const until = Date.now() + 15_000; o === "ok" && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 25));
        o = await outcome(echo(other));
      }
      expect(codeOf(o)).toBe("PB_ERR_CLIENT_QUOTA");
      victim.proc.kill("SIGKILL");
      await new Promise((r) => victim.proc.once("exit", r));
      const killedAt = Date.now();
      // Its calls never end, so nothing releases them: the survivor is refused until the leases lapse.
      expect(codeOf(await outcome(echo(other)))).toBe("PB_ERR_CLIENT_QUOTA");
      let freed = await outcome(echo(other));
      while (freed !== "ok" && Date.now() - killedAt < 30_000) {
        await new Promise((r) => setTimeout(r, 250));
        freed = await outcome(echo(other));
      }
      console.log(`leases of the killed replica lapsed after ${Date.now() - killedAt} ms`);
      expect(freed).toBe("ok");
      // Held until they lapsed (renewed every LEASE_MS / 3 before the kill), and not much longer.
      expect(Date.now() - killedAt).toBeGreaterThan(LEASE_MS * 0.6);
      expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + 5_000);
    } finally {
      await other.close();
    }
  }, 90_000);

  it("refuses calls with PB_ERR_STATE_UNAVAILABLE while PostgreSQL is out of reach, and recovers", async () => {
    const proxy = await tcpProxy(new URL(PG!));
    const url = new URL(PG!);
    url.port = String(proxy.port);
    const [node] = await replicas(1, `${run}-down`, { callsPerMinute: 1000 }, url.toString());
    const session = await node.connect(TOKEN);
    try {
      expect(await outcome(echo(session))).toBe("ok");
      await proxy.down();
      const refused = await outcome(echo(session));
      expect(codeOf(refused)).toBe("PB_ERR_STATE_UNAVAILABLE");
      if (refused === "ok") throw new Error("admitted");
      expect(refused.message).toContain("gateway.state.postgres");
      expect(refused.message).not.toContain(new URL(PG!).password);
      expect(node.proc.exitCode).toBe(null);
      await proxy.up();
      expect(await outcome(echo(session))).toBe("ok");
      // The operator has no quota: it never waits for the database.
      const op = await node.connect(OPERATOR);
      await proxy.down();
      expect(await outcome(echo(op))).toBe("ok");
      await proxy.up();
      await op.close();
    } finally {
      await session.close();
      await proxy.down();
    }
  }, 90_000);
});
