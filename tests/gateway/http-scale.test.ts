/**
 * What one `serve --http` replica does for a fleet, against the real bin and the SDK client:
 * idle sessions give way (oldest first) to a new client instead of locking it out, unknown
 * sessions get the SDK's -32001; `--stateless` answers without sessions (JSON replies, 405 for
 * the notification stream, no list_changed); idempotency keys run a call once per replica and
 * give a keyed memory write the same id on any replica; `status --peers` reads every replica.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cleanupTempDirs } from "../helpers.js";
import { childEnv, gatewayConfig, startHttpServe, toolText, type HttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const KEY = "patchbay/idempotency-key";
const init = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "idle", version: "1" } },
  });
const headers = (token: string, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${token}`,
  ...extra,
});

async function statusDoc(s: HttpServe): Promise<{
  httpSessions: { mode: string; open: number; evicted: number };
  instances: { id: string; calls: number }[];
}> {
  const res = await fetch(`${s.base}/status`, { headers: { authorization: `Bearer ${s.token}` } });
  return (await res.json()) as never;
}
const callsOf = async (s: HttpServe, id: string) => (await statusDoc(s)).instances.find((i) => i.id === id)!.calls;

/** Opens a session with a bare initialize and never uses or closes it; resolves its id. */
async function idleSession(s: HttpServe, n: number): Promise<string> {
  const res = await fetch(s.url, { method: "POST", headers: headers(s.token), body: init(n) });
  await res.text();
  expect(res.status).toBe(200);
  return res.headers.get("mcp-session-id")!;
}

describe("serve --http sessions", () => {
  it("300 idle sessions do not lock a new client out: the oldest idle ones are evicted, and their owners get 404 / -32001", async () => {
    const { file } = gatewayConfig({ defaults: { timeout_ms: 5_000, health_interval_ms: 60_000 } });
    const s = await startHttpServe(file);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 300; i++) ids.push(await idleSession(s, i));
      const client = await s.connect();
      expect(toolText(await client.callTool({ name: "gw__echo", arguments: { text: "not locked out" } }))).toBe(
        "not locked out",
      );
      const doc = await statusDoc(s);
      expect(doc.httpSessions.open).toBe(256);
      expect(doc.httpSessions.evicted).toBe(300 + 1 - 256);
      // The first sessions opened were idle longest: gone, with the code generic clients know.
      const oldest = await fetch(s.url, {
        method: "POST",
        headers: headers(s.token, { "mcp-session-id": ids[0], "mcp-protocol-version": "2025-06-18" }),
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      });
      expect(oldest.status).toBe(404);
      expect(((await oldest.json()) as { error: { code: number } }).error.code).toBe(-32001);
      // The newest idle session is still there.
      const newest = await fetch(s.url, {
        method: "POST",
        headers: headers(s.token, { "mcp-session-id": ids[299], "mcp-protocol-version": "2025-06-18" }),
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      });
      expect(newest.status).toBe(200);
      await newest.text();
      await client.close();
    } finally {
      await s.stop();
    }
  }, 120_000);
});

describe("serve --http --stateless", () => {
  it("answers without sessions: plain JSON replies, no list_changed, 405 for GET, progress still streamed, bad and 10 MB bodies refused", async () => {
    const { file } = gatewayConfig({ defaults: { timeout_ms: 5_000, health_interval_ms: 60_000 } });
    const s = await startHttpServe(file, { PATCHBAY_TOKEN: "test-token-123" }, ["--stateless"]);
    try {
      expect(s.stderr()).toMatch(/stateless/);
      const client = await s.connect();
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
      expect(toolText(await client.callTool({ name: "gw__echo", arguments: { text: "any replica" } }))).toBe(
        "any replica",
      );
      await client.close();

      const call = (meta: Record<string, unknown> = {}) =>
        fetch(s.url, {
          method: "POST",
          headers: headers(s.token),
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "gw__echo", arguments: { text: "x" }, _meta: meta },
          }),
        });
      const plain = await call();
      expect(plain.status).toBe(200);
      expect(plain.headers.get("content-type")).toMatch(/application\/json/);
      expect(plain.headers.get("mcp-session-id")).toBeNull();
      expect(((await plain.json()) as { result: { content: { text: string }[] } }).result.content[0].text).toBe("x");
      const streamed = await call({ progressToken: "p1" });
      expect(streamed.headers.get("content-type")).toMatch(/text\/event-stream/);
      await streamed.text();
      const get = await fetch(s.url, { headers: { authorization: `Bearer ${s.token}`, accept: "text/event-stream" } });
      expect(get.status).toBe(405);
      const malformed = await fetch(s.url, { method: "POST", headers: headers(s.token), body: "{not json" });
      expect(malformed.status).toBe(400);
      const big = await fetch(s.url, {
        method: "POST",
        headers: headers(s.token),
        body: Buffer.alloc(10 * 1024 * 1024, 0x20),
      }).then((r) => r.status);
      expect(big).toBe(413);
      expect(
        toolText(await (await s.connect()).callTool({ name: "gw__echo", arguments: { text: "still serving" } })),
      ).toBe("still serving");
      expect((await statusDoc(s)).httpSessions).toMatchObject({ mode: "stateless", open: 0 });
    } finally {
      await s.stop();
    }
  }, 60_000);
});

describe("idempotency keys", () => {
  it("run a keyed call once per replica, refuse the key with other arguments, and let a failed attempt run again", async () => {
    const { file } = gatewayConfig({ defaults: { timeout_ms: 5_000, health_interval_ms: 60_000 } });
    const s = await startHttpServe(file);
    try {
      const client = await s.connect();
      const echo = (text: string, key: string) =>
        client.callTool({ name: "gw__echo", arguments: { text }, _meta: { [KEY]: key } });
      expect(toolText(await echo("once", "k1"))).toBe("once");
      expect(toolText(await echo("once", "k1"))).toBe("once");
      expect(await callsOf(s, "mcpConnectors/gw")).toBe(1);
      const conflict = await echo("other", "k1");
      expect(conflict.isError).toBe(true);
      expect(toolText(conflict)).toMatch(/^\[PB_ERR_GATEWAY_IDEMPOTENCY_CONFLICT\]/);
      expect(await callsOf(s, "mcpConnectors/gw")).toBe(1);
      const fail = () => client.callTool({ name: "gw__fail", arguments: {}, _meta: { [KEY]: "k2" } });
      expect((await fail()).isError).toBe(true);
      expect((await fail()).isError).toBe(true);
      expect(await callsOf(s, "mcpConnectors/gw")).toBe(3);
      const bad = await client.callTool({ name: "gw__echo", arguments: { text: "x" }, _meta: { [KEY]: 42 } });
      expect(toolText(bad)).toMatch(/^\[PB_ERR_CONTRACT_ARGS\]/);
      await client.close();
    } finally {
      await s.stop();
    }
  }, 60_000);

  it("give a keyed memory write without an id the same record id on any replica, so a retry elsewhere upserts", async () => {
    const setup = gatewayConfig({ defaults: { timeout_ms: 5_000, health_interval_ms: 60_000 } });
    const { file } = gatewayConfig(
      {
        defaults: { timeout_ms: 5_000, health_interval_ms: 60_000 },
        memoryStores: { notes: { plugin: "sqlite-memory", config: { path: path.join(setup.dir, "notes.db") } } },
        gateway: { expose: { "memoryStores/notes": ["query", "get", "write"] } },
      },
      setup.dir,
    );
    const ids: string[] = [];
    // Two servers one after the other stand for two replicas: the second has no memory of the key.
    for (const summary of ["first attempt", "retry elsewhere"]) {
      const s = await startHttpServe(file);
      try {
        const client = await s.connect();
        const result = await client.callTool({
          name: "memory__notes__write",
          arguments: { summary },
          _meta: { [KEY]: "write-7" },
        });
        expect(result.isError, toolText(result)).toBeFalsy();
        ids.push(JSON.parse(toolText(result)).id);
        if (ids.length === 2) {
          // One record, replaced by the retry (the store upserts on id), not a second one.
          const found = JSON.parse(
            toolText(await client.callTool({ name: "memory__notes__get", arguments: { id: ids[0] } })),
          );
          expect(found).toMatchObject({ id: ids[0], summary: "retry elsewhere" });
        }
        await client.close();
      } finally {
        await s.stop();
      }
    }
    expect(ids[0]).toMatch(/^idem-[0-9a-f]{32}$/);
    expect(ids[1]).toBe(ids[0]);
  }, 90_000);
});

describe("patchbay status --peers", () => {
  it("prints a row per replica and totals, names an unreachable one, and exits 1 for it", async () => {
    const a = await startHttpServe(
      gatewayConfig({ defaults: { health_interval_ms: 60_000 } }).file,
      { PATCHBAY_TOKEN: "peer-token" },
      ["--stateless"],
    );
    const b = await startHttpServe(gatewayConfig({ defaults: { health_interval_ms: 60_000 } }).file, {
      PATCHBAY_TOKEN: "peer-token",
    });
    try {
      const client = await b.connect();
      await client.callTool({ name: "gw__echo", arguments: { text: "counted" } });
      const run = (args: string[], token = "peer-token") =>
        new Promise<{ code: number; out: string }>((resolve) => {
          execFile(
            process.execPath,
            [BIN, "status", ...args],
            { env: childEnv({ PATCHBAY_TOKEN: token }), cwd: path.dirname(BIN) },
            (err, stdout) => resolve({ code: err ? Number(err.code) : 0, out: stdout }),
          );
        });
      const both = await run(["--peers", `${a.base},${b.url}`]);
      expect(both.code).toBe(0);
      expect(both.out).toContain(`${a.base}/status`);
      expect(both.out).toMatch(/stateless/);
      expect(both.out).toMatch(/stateful\s+1\s/);
      expect(both.out).toMatch(/total \(2\/2 answering\)/);
      const json = await run(["--peers", `${a.base},${b.base},http://127.0.0.1:1`, "--json"]);
      expect(json.code).toBe(1);
      const doc = JSON.parse(json.out);
      expect(doc.totals).toMatchObject({ replicas: 3, answering: 2, sessions: 1, calls: 1 });
      expect(doc.peers[2]).toMatchObject({
        url: "http://127.0.0.1:1/status",
        ok: false,
        error: { code: "PB_ERR_GATEWAY_PEER_UNREACHABLE" },
      });
      // Not "fetch failed": why it did not connect.
      expect(doc.peers[2].error.message).toContain("fetch refuses to connect to port 1 (a port browsers block)");
      const wrong = await run(["--peers", a.base, "--json"], "not-the-peer-token");
      expect(wrong.code).toBe(1);
      expect(JSON.parse(wrong.out).peers[0].error.message).toContain("HTTP 403 (the token is not this replica's)");
      await client.close();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 90_000);
});
