/**
 * Trust levels: doctor warns when a plugin that is neither bundled nor listed in
 * "trust" runs as a thread next to instances holding secrets, and names the line to add.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, runCli, writeConfig } from "../helpers.js";

afterAll(() => cleanupTempDirs());

async function doctor(extra: Record<string, unknown>, hostile: Record<string, unknown> = {}) {
  const { dir } = writeConfig({
    ...extra,
    mcpConnectors: {
      h: { plugin: "fx-hostile", ...hostile },
      n: { plugin: "fx-echo", config: { token: "${FX_TOKEN}" } },
    },
  });
  const r = await runCli(["doctor", "--json"], { cwd: dir, env: { FX_TOKEN: "tok-123456" } });
  const doc = JSON.parse(r.stdout) as { checks: { check: string; ok: boolean; warn?: boolean; detail: string }[] };
  return doc.checks.filter((c) => c.check.endsWith(" trust"));
}

describe("doctor's trust warning", () => {
  it("warns about an untrusted thread plugin next to an instance holding a secret, naming the line to add", async () => {
    const warnings = await doctor({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ check: "mcpConnectors/h trust", ok: false, warn: true });
    expect(warnings[0].detail).toContain('"trust": ["fx-hostile"]');
    expect(warnings[0].detail).toContain("mcpConnectors/n");
    expect(warnings[0].detail).not.toContain("tok-123456");
  });

  it("is silent once the operator trusts the plugin, or sandboxes it", async () => {
    expect(await doctor({ trust: ["fx-hostile"] })).toEqual([]);
    expect(await doctor({}, { isolation: "process" })).toEqual([]);
  });
});
