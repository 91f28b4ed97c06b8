/**
 * Per-client identity on `serve --http` against the real bin: two clients with disjoint policies
 * see and call only their own tools, a session answers only the client that opened it, GET /status
 * and /metrics show a client its part, and a client removed from connectors.json is refused on its
 * next request, in the session it already holds too.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, until } from "../helpers.js";
import { gatewayConfig, startHttpServe, type HttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const OPERATOR = "operator-token-0123456789";
const ALPHA = "alpha-token-0123456789abcdef";
const BETA = "beta-token-0123456789abcdef";
const GAMMA = "gamma-token-0123456789abcdef";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

const clients = {
  alpha: { token: "${ALPHA_TOKEN}", expose: { "mcpConnectors/gw": ["e*", "whoami"] } },
  beta: { tokenSha256: sha(BETA), expose: { "memoryStores/primary": true }, limits: { concurrent: 4 } },
  gamma: { tokenSha256: sha(GAMMA), expose: {}, metrics: true },
};
const env = { PATCHBAY_TOKEN: OPERATOR, ALPHA_TOKEN: ALPHA };

async function names(s: HttpServe, token: string): Promise<string[]> {
  const c = await s.connect(token);
  try {
    return (await c.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await c.close();
  }
}

async function refusal(p: Promise<unknown>): Promise<McpError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

describe("gateway clients over serve --http", () => {
  it("shows each client exactly its own tools and refuses every other call with its code and id", async () => {
    const { file } = gatewayConfig({ gateway: { clients } });
    const s = await startHttpServe(file, env);
    try {
      const all = await names(s, OPERATOR);
      const alpha = await names(s, ALPHA);
      const beta = await names(s, BETA);
      expect(alpha).toEqual(all.filter((n) => /^gw__(echo|whoami)$/.test(n)));
      expect(alpha).toHaveLength(2);
      expect(beta).toEqual(all.filter((n) => n.includes("primary__")));
      expect(beta.length).toBeGreaterThan(0);
      expect(await names(s, GAMMA)).toEqual([]);

      const a = await s.connect(ALPHA);
      try {
        const echoed = await a.callTool({ name: "gw__echo", arguments: { text: "hi" } });
        expect(echoed.isError).not.toBe(true);
        // Another client's tool, a tool of a connector it has in part, and a tool nobody has: one answer.
        for (const name of [beta[0], "gw__fail", "no_such_tool"]) {
          const err = await refusal(a.callTool({ name, arguments: {} }));
          expect(err.code).toBe(-32003);
          expect(err.message).toContain("PB_ERR_CLIENT_FORBIDDEN");
          expect(err.message).toContain('Client "alpha"');
          expect(err.message).not.toMatch(/beta|gamma/);
          expect(err.data).toMatchObject({ code: "PB_ERR_CLIENT_FORBIDDEN", client: "alpha" });
        }
      } finally {
        await a.close();
      }
    } finally {
      await s.stop();
    }
  });

  it("binds a session to the client that opened it", async () => {
    const { file } = gatewayConfig({ gateway: { clients } });
    const s = await startHttpServe(file, env);
    try {
      const init = await fetch(s.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${ALPHA}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        }),
      });
      const session = init.headers.get("mcp-session-id");
      expect(session).toBeTruthy();
      const list = (token: string) =>
        fetch(s.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            authorization: `Bearer ${token}`,
            "mcp-session-id": session!,
            "mcp-protocol-version": "2025-06-18",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
        });
      const stolen = await list(BETA);
      expect(stolen.status).toBe(403);
      const body = (await stolen.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("PB_ERR_SESSION_FORBIDDEN");
      expect(body.error.message).toContain('client "beta"');
      expect(body.error.message).not.toContain("alpha");
      // The operator may not borrow it either: a session is its opener's.
      expect((await list(OPERATOR)).status).toBe(403);
      expect((await list(ALPHA)).status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it("shows a client its own part of GET /status and /metrics only with the metrics grant", async () => {
    const { file } = gatewayConfig({ gateway: { clients } });
    const s = await startHttpServe(file, env);
    try {
      const get = (path: string, token: string) =>
        fetch(`${s.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const mine = (await (await get("/status", ALPHA)).json()) as Record<string, unknown>;
      expect(mine).toMatchObject({ client: { id: "alpha" } });
      expect((mine.instances as { id: string }[]).map((i) => i.id)).toEqual(["mcpConnectors/gw"]);
      expect(JSON.stringify(mine)).not.toMatch(/beta|gamma|configFile|"pid"/);
      const all = (await (await get("/status", OPERATOR)).json()) as Record<string, unknown>;
      expect(all.clients).toEqual(["alpha", "beta", "gamma"]);

      const refused = await get("/metrics", ALPHA);
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as { error: { code: string; hint: string } };
      expect(body.error.code).toBe("PB_ERR_CLIENT_FORBIDDEN");
      // The fix is the grant, not the client's expose.
      expect(body.error.hint).toContain('"metrics": true at /gateway/clients/alpha of connectors.json');
      expect(body.error.hint).not.toContain("expose");
      expect((await get("/metrics", GAMMA)).status).toBe(200);
      expect((await get("/metrics", "not-a-token-of-anyone")).status).toBe(403);

      // Calls are counted by client, and refusals before any instance by client and reason.
      const a = await s.connect(ALPHA);
      await a.callTool({ name: "gw__echo", arguments: { text: "x" } });
      await a.callTool({ name: "gw__fail", arguments: {} }).catch(() => null);
      await a.close();
      // A scrape right after another may be answered by its rendering (metrics.ts): ask until fresh.
      let text = "";
      for (let i = 0; i < 100 && !/tool="gw__echo"[^}]*client="alpha"/.test(text); i++) {
        await new Promise((r) => setTimeout(r, 50));
        text = await (await get("/metrics", OPERATOR)).text();
      }
      expect(text).toMatch(/patchbay_tool_calls_total\{[^}]*tool="gw__echo"[^}]*client="alpha"[^}]*\} 1/);
      expect(text).toMatch(/patchbay_client_refusals_total\{client="alpha",reason="policy"\} 1/);
      expect(text).toMatch(/patchbay_client_refusals_total\{client="beta",reason="quota"\} 0/);
    } finally {
      await s.stop();
    }
  });

  it("refuses a client removed from connectors.json on its next request, in its open session too", async () => {
    const { file } = gatewayConfig({ gateway: { clients } });
    const s = await startHttpServe(file, env, ["--watch"]);
    try {
      // The watcher is armed once the boot is done: an edit before it would go unseen.
      await until(() => /watching connectors\.json/.test(s.stderr()), 60_000, "the watcher");
      const a = await s.connect(ALPHA);
      expect((await a.listTools()).tools.length).toBe(2);
      const config = JSON.parse(readFileSync(file, "utf8")) as { gateway: { clients: Record<string, unknown> } };
      delete config.gateway.clients.alpha;
      writeFileSync(file, JSON.stringify(config, null, 2));
      await until(() => /reload done/.test(s.stderr()), 60_000, "the reload");
      const err = await a.listTools().then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(err).not.toBeNull();
      const raw = await fetch(s.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ALPHA}` },
        body: "{}",
      });
      expect(raw.status).toBe(403);
      expect(((await raw.json()) as { error: { code: string } }).error.code).toBe("PB_ERR_GATEWAY_UNAUTHORIZED");
      expect(await names(s, BETA)).not.toEqual([]);
      await a.close().catch(() => undefined);
    } finally {
      await s.stop();
    }
  });

  it("holds a stateless gateway to the same policy", async () => {
    const { file } = gatewayConfig({ gateway: { clients } });
    const s = await startHttpServe(file, env, ["--stateless"]);
    try {
      expect(await names(s, ALPHA)).toEqual(["gw__echo", "gw__whoami"]);
      const a = await s.connect(ALPHA);
      const err = await refusal(a.callTool({ name: "gw__fail", arguments: {} }));
      expect(err.code).toBe(-32003);
      await a.close();
    } finally {
      await s.stop();
    }
  });
});
