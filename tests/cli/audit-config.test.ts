/**
 * `patchbay audit` from an operator's shell, which seldom has the serve's environment: reading the
 * trail resolves only gateway.state, so a client token or a connector's setting given as "${VAR}"
 * does not stop it, and an unset variable of gateway.state itself is named, alone.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, runCli, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

const entry = {
  time: new Date().toISOString(),
  client: "eps",
  session: "s-1",
  instance: "mcpConnectors/up",
  kind: "tool",
  name: "echo",
  outcome: "ok",
  durationMs: 3,
  bytesIn: 10,
  bytesOut: 20,
  idempotencyKey: null,
};

function configWith(gateway: Record<string, unknown>) {
  return writeConfig({
    mcpConnectors: {
      up: { plugin: "mcp-remote", config: { command: "node", args: ["server.js"], env: { KEY: "${UPSTREAM_KEY}" } } },
    },
    gateway: { clients: { eps: { token: "${EPS_TOKEN}", expose: { "mcpConnectors/up": true } } }, ...gateway },
  });
}

describe("patchbay audit without the serve's environment", () => {
  it("reads the trail when clients' and connectors' variables are unset", async () => {
    const { dir, file } = configWith({});
    mkdirSync(path.join(dir, ".patchbay"), { recursive: true });
    writeFileSync(path.join(dir, ".patchbay", "audit.log"), `${JSON.stringify(entry)}\n`);
    const r = await runCli(["audit", "--json", "--config", file], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ source: "file", entries: [entry] });
  });

  it("names only gateway.state's own unset variable", async () => {
    const { dir, file } = configWith({ state: { postgres: "${STATE_URL}" } });
    const r = await runCli(["audit", "--config", file], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PB_ERR_CONFIG_ENV_MISSING");
    expect(r.stderr).toContain("STATE_URL");
    expect(r.stderr).toContain("/gateway/state/postgres");
    expect(r.stderr).not.toContain("EPS_TOKEN");
    expect(r.stderr).not.toContain("UPSTREAM_KEY");
  });
});
