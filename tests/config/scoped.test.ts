/**
 * Scoped config problems: an unset ${VAR} or a bad key inside one instance blocks that instance
 * and what is granted it, never the others; a problem outside every instance still fails the load.
 */
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { cleanupTempDirs, runCli, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

const SECRET = "scoped-secret-value-7";
const mixed = {
  mcpConnectors: {
    echo: { plugin: "fx-echo", config: { token: "${FX_TOKEN}" } },
    broken: { plugin: "fx-echo", config: { token: "${UNSET_SCOPED_VAR}" } },
    typo: { plugin: "fx-echo", allowed_tool: ["echo"] },
  },
  memoryStores: { m: { plugin: "fx-healht", config: { health: "true" } } },
  agentConnectors: { needs: { plugin: "fx-agent-echo", grants: ["mcpConnectors/broken"] } },
};

describe("scoped config problems", () => {
  it("the default load still fails on any problem; a scoped load blocks only the instances they are in", async () => {
    const { file } = writeConfig(mixed);
    await expect(loadConfig({ config: file, env: { FX_TOKEN: SECRET } })).rejects.toMatchObject({
      code: "PB_ERR_CONFIG_ENV_MISSING",
    });
    const config = await loadConfig({ config: file, env: { FX_TOKEN: SECRET }, scoped: true });
    expect(Object.keys(config.blocked).sort()).toEqual(["mcpConnectors/broken", "mcpConnectors/typo"]);
    expect(config.blocked["mcpConnectors/broken"]).toMatchObject({
      code: "PB_ERR_CONFIG_ENV_MISSING",
      data: { variables: ["UNSET_SCOPED_VAR"] },
    });
    expect(config.blocked["mcpConnectors/typo"].message).toContain('did you mean "allowed_tools"');
    expect(config.instances.map((i) => i.id)).toContain("mcpConnectors/echo");
  });

  it("a problem outside every instance still fails a scoped load", async () => {
    const { file } = writeConfig({ ...mixed, defaults: { timeout_ms: "${UNSET_SCOPED_VAR}" } });
    await expect(loadConfig({ config: file, env: { FX_TOKEN: SECRET }, scoped: true })).rejects.toMatchObject({
      code: "PB_ERR_CONFIG_ENV_MISSING",
    });
  });

  it("call of a healthy instance works while others are broken; list and doctor report every problem together", async () => {
    const { dir } = writeConfig(mixed);
    const env = { FX_TOKEN: SECRET };
    const call = await runCli(["call", "mcpConnectors/echo", "call", "echo", '{"text":"hi"}'], { cwd: dir, env });
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout)).toMatchObject({ text: "hi" });

    const list = await runCli(["list", "--json"], { cwd: dir, env });
    expect(list.code, list.stderr).toBe(0);
    const errors = Object.fromEntries(
      JSON.parse(list.stdout).instances.map((i: { id: string; error: { code: string } | null }) => [
        i.id,
        i.error?.code ?? null,
      ]),
    );
    expect(errors).toEqual({
      "mcpConnectors/echo": null,
      "mcpConnectors/broken": "PB_ERR_CONFIG_ENV_MISSING",
      "mcpConnectors/typo": "PB_ERR_CONFIG_INVALID",
      "memoryStores/m": "PB_ERR_CONFIG_UNKNOWN_PLUGIN",
      "agentConnectors/needs": "PB_ERR_INSTANCE_UNAVAILABLE",
    });

    const doctor = await runCli(["doctor", "--json"], { cwd: dir, env });
    expect(doctor.code).toBe(2);
    const failed = JSON.parse(doctor.stdout)
      .checks.filter((c: { ok: boolean; error: unknown }) => !c.ok && c.error)
      .map((c: { error: { code: string } }) => c.error.code);
    expect(failed).toEqual(
      expect.arrayContaining([
        "PB_ERR_CONFIG_ENV_MISSING",
        "PB_ERR_CONFIG_INVALID",
        "PB_ERR_CONFIG_UNKNOWN_PLUGIN",
        "PB_ERR_INSTANCE_UNAVAILABLE",
      ]),
    );
    expect(doctor.stdout).not.toContain(SECRET);
  });
});
