/**
 * Quotas on the real `serve --http` (in memory: no gateway.state): a client past its calls per
 * minute or its concurrent calls gets -32004 PB_ERR_CLIENT_QUOTA naming it and the wait, the
 * refused call reaches no instance, and another client and the operator are not held back; a
 * cancelled call gives its slot back; a read the client's policy refuses takes no quota. A gateway.state that cannot be reached stops the start,
 * without printing its password.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cleanupTempDirs, runCli } from "../helpers.js";
import { childEnv, gatewayConfig, startHttpServe, type HttpServe } from "./_gateway.js";
import { everythingConfig } from "./_updates.js";

afterAll(cleanupTempDirs);

const OPERATOR = "operator-token-0123456789";
const ALPHA = "alpha-token-0123456789abcdef";
const BETA = "beta-token-0123456789abcdef";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const env = { PATCHBAY_TOKEN: OPERATOR };
const tools = { "mcpConnectors/gw": ["echo", "slow"] };

async function outcome(p: Promise<unknown>): Promise<"ok" | McpError> {
  return p.then(
    () => "ok" as const,
    (e: unknown) => {
      if (e instanceof McpError) return e;
      throw e;
    },
  );
}

async function gwCalls(s: HttpServe): Promise<number> {
  const res = await fetch(`${s.base}/status`, { headers: { Authorization: `Bearer ${OPERATOR}` } });
  const doc = (await res.json()) as { instances: { id: string; calls?: number }[] };
  return doc.instances.find((i) => i.id === "mcpConnectors/gw")?.calls ?? 0;
}

const echo = (c: Client) => c.callTool({ name: "gw__echo", arguments: { text: "hi" } });

describe("client quotas over serve --http (in memory)", () => {
  it("refuses the sixth call of a client limited to 5 per minute, before any instance; others are not held back", async () => {
    const clients = {
      alpha: { tokenSha256: sha(ALPHA), expose: tools, limits: { callsPerMinute: 5 } },
      beta: { tokenSha256: sha(BETA), expose: tools },
    };
    const s = await startHttpServe(gatewayConfig({ gateway: { clients } }).file, env);
    const [alpha, beta, operator] = await Promise.all([s.connect(ALPHA), s.connect(BETA), s.connect(OPERATOR)]);
    try {
      for (let i = 0; i < 5; i++) expect(await outcome(echo(alpha))).toBe("ok");
      expect(await gwCalls(s)).toBe(5);
      const refused = await outcome(echo(alpha));
      if (refused === "ok") throw new Error("the sixth call was admitted");
      expect(refused.code).toBe(-32004);
      expect(refused.message).toContain("PB_ERR_CLIENT_QUOTA");
      expect(refused.message).toContain('Client "alpha"');
      expect(refused.message).toMatch(/5 calls per minute.*retry in \d+\.\d s/);
      const data = refused.data as { code: string; client: string; retryAfterMs: number };
      expect(data).toMatchObject({ code: "PB_ERR_CLIENT_QUOTA", client: "alpha" });
      expect(data.retryAfterMs).toBeGreaterThan(0);
      expect(data.retryAfterMs).toBeLessThanOrEqual(120_000);
      expect(refused.message).not.toContain("beta");
      // The refused call reached no instance.
      expect(await gwCalls(s)).toBe(5);
      for (let i = 0; i < 6; i++) {
        expect(await outcome(echo(beta))).toBe("ok");
        expect(await outcome(echo(operator))).toBe("ok");
      }
      expect(await gwCalls(s)).toBe(17);
    } finally {
      await Promise.all([alpha, beta, operator].map((c) => c.close()));
      await s.stop();
    }
  }, 30_000);

  it("refuses a third concurrent call; a finished or cancelled call gives its slot back", async () => {
    const clients = { alpha: { tokenSha256: sha(ALPHA), expose: tools, limits: { concurrent: 2 } } };
    const s = await startHttpServe(gatewayConfig({ gateway: { clients } }).file, env);
    const alpha = await s.connect(ALPHA);
    const slow = (ms: number, signal?: AbortSignal) =>
      alpha.callTool({ name: "gw__slow", arguments: { ms } }, undefined, { signal, timeout: 10_000 });
    // Echo until the gateway refuses one: that is once both slow calls hold their slots.
    const untilRefused = async (): Promise<McpError> => {
      for (const until = Date.now() + 15_000; Date.now() < until; ) {
        // A pause first: the echo must not overtake the slow calls it should find in flight.
        await new Promise((r) => setTimeout(r, 25));
        const o = await outcome(echo(alpha));
        if (o !== "ok") return o;
      }
      throw new Error("never refused");
    };
    try {
      // Booted first, so the slow calls are admitted at once (not racing the echoes below).
      expect(await outcome(echo(alpha))).toBe("ok");
      let settled = 0;
      const first = slow(2_500).finally(() => settled++);
      const cancel = new AbortController();
      const second = outcome(slow(2_500, cancel.signal)).finally(() => settled++);
      const refused = await untilRefused();
      expect(settled).toBe(0);
      expect(refused.code).toBe(-32004);
      expect(refused.message).toContain('Client "alpha" already has 2 calls in flight');
      expect(refused.data).toMatchObject({ code: "PB_ERR_CLIENT_QUOTA", client: "alpha" });
      expect((refused.data as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
      // Cancelling one frees its slot while the other still runs.
      cancel.abort();
      await second;
      let again = await outcome(echo(alpha));
      for (const until = Date.now() + 2_000; again !== "ok" && Date.now() < until; ) again = await outcome(echo(alpha));
      expect(again).toBe("ok");
      expect(settled).toBe(1);
      await first;
      // Both slots are free: two calls at once are admitted again.
      expect(await Promise.all([outcome(slow(50)), outcome(slow(50))])).toEqual(["ok", "ok"]);
    } finally {
      await alpha.close();
      await s.stop();
    }
  }, 30_000);

  it("counts resources/read and prompts/get against the same calls per minute", async () => {
    const clients = {
      alpha: { tokenSha256: sha(ALPHA), expose: { "mcpConnectors/everything": true }, limits: { callsPerMinute: 3 } },
    };
    const s = await startHttpServe(everythingConfig({ gateway: { clients } }).file, env);
    const alpha = await s.connect(ALPHA);
    try {
      const read = () => alpha.readResource({ uri: "demo://resource/static/document/architecture.md" });
      const prompt = () => alpha.getPrompt({ name: "everything__simple-prompt" });
      expect([await outcome(prompt()), await outcome(read()), await outcome(read())]).toEqual(["ok", "ok", "ok"]);
      for (const refused of [await outcome(prompt()), await outcome(read())]) {
        if (refused === "ok") throw new Error("admitted past the quota");
        expect(refused.code).toBe(-32004);
        expect(refused.data).toMatchObject({ code: "PB_ERR_CLIENT_QUOTA", client: "alpha" });
      }
    } finally {
      await alpha.close();
      await s.stop();
    }
  }, 60_000);

  it("answers a read outside the client's policy as forbidden, without taking its quota", async () => {
    const clients = {
      alpha: {
        tokenSha256: sha(ALPHA),
        expose: { "mcpConnectors/everything": ["echo"] },
        limits: { callsPerMinute: 2 },
      },
    };
    const s = await startHttpServe(everythingConfig({ gateway: { clients } }).file, env);
    const alpha = await s.connect(ALPHA);
    try {
      const echoed = () => alpha.callTool({ name: "everything__echo", arguments: { message: "hi" } });
      for (let i = 0; i < 3; i++) {
        const refused = await outcome(alpha.readResource({ uri: "demo://resource/static/document/architecture.md" }));
        if (refused === "ok") throw new Error("a resource outside the policy was read");
        expect(refused.code).toBe(-32003);
        expect(refused.data).toMatchObject({ code: "PB_ERR_CLIENT_FORBIDDEN", client: "alpha" });
        // The gateway's message starts with its code (the client's SDK adds the one prefix).
        expect(refused.message).toMatch(/^MCP error -32003: \[PB_ERR_CLIENT_FORBIDDEN\] Client "alpha" may not use/);
      }
      // Both calls of its quota are still there.
      expect([await outcome(echoed()), await outcome(echoed())]).toEqual(["ok", "ok"]);
    } finally {
      await alpha.close();
      await s.stop();
    }
  }, 60_000);

  it("does not start when gateway.state cannot be reached, and never prints its password", async () => {
    const { file } = gatewayConfig({
      gateway: {
        clients: { alpha: { tokenSha256: sha(ALPHA), expose: tools, limits: { callsPerMinute: 5 } } },
        state: { postgres: "${STATE_URL}" },
      },
    });
    const proc = spawn(process.execPath, [BIN, "serve", "--http", "--port", "0", "--config", file], {
      env: childEnv({ ...env, STATE_URL: "postgres://patchbay:pw-hunter2-xyz@127.0.0.1:1/nowhere" }),
      cwd: path.dirname(file),
    });
    let out = "";
    proc.stdout.on("data", (d) => (out += d));
    proc.stderr.on("data", (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(out).toContain("PB_ERR_STATE_UNAVAILABLE");
    expect(out).toContain("gateway.state.postgres");
    expect(out).not.toContain("hunter2");
    expect(out).not.toContain("Streamable HTTP at");
  }, 30_000);

  it("refuses a gateway.state that is not a URL as a config error (exit 2), never as an outage to wait out", async () => {
    const { file } = gatewayConfig({ gateway: { state: { postgres: "${STATE_URL}" } } });
    const r = await runCli(["serve", "--http", "--port", "0", "--config", file], {
      cwd: path.dirname(file),
      env: { ...env, STATE_URL: "postgres://patchbay:pw-hunter2-xyz@127.0.0.1:notaport/nowhere" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PB_ERR_CONFIG_INVALID");
    expect(r.stderr).toContain("/gateway/state/postgres: the value is not a PostgreSQL connection URL");
    expect(r.stdout + r.stderr).not.toContain("hunter2");
    expect(r.stderr).not.toContain("PB_ERR_STATE_UNAVAILABLE");
  }, 30_000);
});
