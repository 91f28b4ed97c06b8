/**
 * `patchbay client add|list|revoke` against the real bin and a running `serve --http`: the token is
 * printed once and only its hash is written; the running serve takes a new client at once and
 * refuses a revoked one on its next request, in the session it holds too; list never shows a token;
 * bad input changes nothing.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, runCli } from "../helpers.js";
import { gatewayConfig, startHttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const OPERATOR = "operator-token-0123456789";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe("patchbay client", () => {
  it("add prints a token once and writes its hash; list shows no token; revoke removes it", async () => {
    const { file } = gatewayConfig({ gateway: { clients: { old: { token: "${OLD_TOKEN}", expose: {} } } } });
    const cwd = path.dirname(file);
    const added = await runCli(
      ["client", "add", "triage", "--expose", "mcpConnectors/gw=e*,whoami", "--calls-per-minute", "30", "--json"],
      { cwd },
    );
    expect(added.code, added.stderr).toBe(0);
    const { token, tokenSha256 } = JSON.parse(added.stdout) as { token: string; tokenSha256: string };
    expect(token).toMatch(/^pbc_[A-Za-z0-9_-]{43}$/);
    expect(tokenSha256).toBe(sha(token));
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(token);
    const written = JSON.parse(text).gateway.clients.triage;
    expect(written).toEqual({
      tokenSha256: sha(token),
      expose: { "mcpConnectors/gw": ["e*", "whoami"] },
      limits: { callsPerMinute: 30 },
    });

    const listed = await runCli(["client", "list"], { cwd });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain("triage");
    expect(listed.stdout).toContain("token ${OLD_TOKEN}");
    expect(listed.stdout).toContain("mcpConnectors/gw=e*,whoami");
    expect(listed.stdout).toContain("30/min");
    expect(listed.stdout).not.toContain(tokenSha256);
    expect(listed.stdout + listed.stderr).not.toContain(token);

    const revoked = await runCli(["client", "revoke", "triage"], { cwd });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, "utf8")).gateway.clients).not.toHaveProperty("triage");
  });

  it("refuses bad input with a code and leaves connectors.json as it was", async () => {
    const { file } = gatewayConfig();
    const cwd = path.dirname(file);
    const before = readFileSync(file, "utf8");
    const cases: [string[], string][] = [
      [["client", "add", "bad id!"], "PB_ERR_USAGE"],
      [["client", "add", "operator"], "PB_ERR_USAGE"],
      [["client", "add", "x", "--expose", "mcpConnectors/nope"], "PB_ERR_CONFIG_INVALID"],
      [["client", "add", "x", "--expose", "not-an-instance"], "PB_ERR_USAGE"],
      [["client", "add", "x", "--concurrent", "-3"], "PB_ERR_USAGE"],
      [["client", "add", "x", "--expose", '{"memoryStores/primary": 5}'], "PB_ERR_CONFIG_INVALID"],
      [["client", "revoke", "ghost"], "PB_ERR_CLIENT_UNKNOWN"],
    ];
    for (const [args, code] of cases) {
      const r = await runCli(args, { cwd });
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(code);
      expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("add refuses a client given more than gateway.expose offers, which serve would refuse to start with", async () => {
    const { file } = gatewayConfig({ gateway: { expose: { "memoryStores/primary": ["query"] } } });
    const cwd = path.dirname(file);
    const before = readFileSync(file, "utf8");
    const r = await runCli(["client", "add", "over", "--expose", "memoryStores/primary=write"], { cwd });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("PB_ERR_CONFIG_INVALID");
    expect(r.stderr).toContain("was not changed");
    expect(r.stderr).toContain(
      '/gateway/clients/over/expose/memoryStores~1primary: "write" is not exposed by the gateway',
    );
    expect(r.stderr).toContain("hint: Add the method to gateway.expose");
    expect(readFileSync(file, "utf8")).toBe(before);
    // Within the ceiling it is written.
    const ok = await runCli(["client", "add", "under", "--expose", "memoryStores/primary=query"], { cwd });
    expect(ok.code, ok.stderr).toBe(0);
  });

  it("serve refuses to start when a client's token is the operator's (it would call as the operator)", async () => {
    const { file } = gatewayConfig({
      gateway: { clients: { dup: { token: "${DUPT}", expose: { "mcpConnectors/gw": ["echo"] } } } },
    });
    const r = await runCli(["serve", "--http", "--port", "0"], {
      cwd: path.dirname(file),
      env: { PATCHBAY_TOKEN: OPERATOR, DUPT: OPERATOR },
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("PB_ERR_CONFIG_INVALID");
    expect(r.stderr).toContain(`/gateway/clients/dup: client "dup" has the operator's token`);
    expect(r.stderr).toContain("hint: Give the client a token of its own");
    expect(r.stdout + r.stderr).not.toContain(OPERATOR);
  });

  it("a running serve --http takes an added client at once and refuses a revoked one in its open session", async () => {
    const { file } = gatewayConfig();
    const cwd = path.dirname(file);
    const s = await startHttpServe(file, { PATCHBAY_TOKEN: OPERATOR });
    try {
      const added = await runCli(["client", "add", "bot", "--expose", "mcpConnectors/gw=echo", "--json"], { cwd });
      expect(added.code, added.stderr).toBe(0);
      const out = JSON.parse(added.stdout) as { token: string; served: { clients: number } };
      expect(out.served.clients).toBe(1);
      const bot = await s.connect(out.token);
      expect((await bot.listTools()).tools.map((t) => t.name)).toEqual(["gw__echo"]);

      const revoked = await runCli(["client", "revoke", "bot"], { cwd });
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stderr).toContain("1 session(s) of a removed client ended");
      const err = await bot.listTools().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).not.toBeNull();
      expect(String((err as McpError).message)).toMatch(/40[34]|not this server's token|session/i);
      await expect(s.connect(out.token)).rejects.toThrow(/403|not this server's token/);
    } finally {
      await s.stop();
    }
  });
});
