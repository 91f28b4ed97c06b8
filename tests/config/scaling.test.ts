/**
 * Config input that scales: nesting deeper than the limit is a coded config error
 * (never a stack overflow reported as PB_ERR_INTERNAL), and alias chains resolve in one pass.
 * Speed (10,000 instances, a 5,000-long chain) is measured in bench/config-scale.mjs, not here.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveAliases } from "../../src/config/aliases.js";
import { loadConfig } from "../../src/config/load.js";
import { MAX_CONFIG_DEPTH } from "../../src/config/depth.js";
import { cleanupTempDirs, runCli, tempDir } from "../helpers.js";

describe("config scaling", () => {
  it("refuses JSON nested 100,000 deep with PB_ERR_CONFIG_TOO_DEEP and exit 2", async () => {
    const dir = tempDir();
    const depth = 100_000;
    writeFileSync(
      path.join(dir, "connectors.json"),
      `{"mcpConnectors":{"x":{"plugin":"fx-echo","config":{"a":${"[".repeat(depth)}${"]".repeat(depth)}}}}}`,
    );
    const r = await runCli(["boot", "--json"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: "PB_ERR_CONFIG_TOO_DEEP" } });
    cleanupTempDirs();
  });

  it("accepts nesting just under the limit and refuses it at the limit", async () => {
    const nest = (n: number): unknown => {
      let v: unknown = "leaf";
      for (let i = 0; i < n; i++) v = [v];
      return v;
    };
    // The instance's config object sits 4 levels down (root, section, instance, config).
    await expect(
      loadConfig({
        config: { mcpConnectors: { x: { plugin: "p", config: { a: nest(MAX_CONFIG_DEPTH - 10) } } } },
        env: {},
      }),
    ).resolves.toBeDefined();
    await expect(
      loadConfig({ config: { mcpConnectors: { x: { plugin: "p", config: { a: nest(MAX_CONFIG_DEPTH) } } } }, env: {} }),
    ).rejects.toMatchObject({ code: "PB_ERR_CONFIG_TOO_DEEP" });
  });

  it("resolves a 5,000-long alias chain to its instance, and reports a cycle once at its first member", () => {
    const entries: Record<string, unknown> = { base: { plugin: "p" } };
    for (let i = 0; i < 5_000; i++) entries[`a${i}`] = i === 0 ? "base" : `a${i - 1}`;
    const r = resolveAliases({ mcpConnectors: entries });
    expect(r.issues).toEqual([]);
    expect(r.aliases["mcpConnectors/a4999"]).toBe("mcpConnectors/base");
    expect(Object.keys(r.aliases)).toHaveLength(5_000);
    const cyc = resolveAliases({ mcpConnectors: { lead: "c", b: "c", c: "d", d: "b" } });
    expect(cyc.issues).toEqual([{ pointer: "/mcpConnectors/b", message: "aliases form a cycle: b → c → d → b" }]);
    expect(cyc.aliases).toEqual({});
  });
});
