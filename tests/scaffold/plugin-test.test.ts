/**
 * `patchbay plugin test` beyond the happy path (templates.test.ts proves every template
 * passes): a plugin that breaks its contract fails with the claim and the reason (exit 1), and
 * what it cannot test is a usage error (exit 2) that says what to do.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scaffoldPlugin } from "../../src/scaffold/scaffold.js";
import { cleanupTempDirs, ROOT, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

/** A freshly scaffolded plugin in a folder with no connectors.json above it. */
function scaffold(kind: string, name: string): { cwd: string; dir: string } {
  const cwd = tempDir("pb-plugin-test-");
  return { cwd, dir: scaffoldPlugin({ kind, name, parentDir: path.join(cwd, "plugins") }).dir };
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, "utf8");
  expect(text, `${file} no longer contains ${from}`).toContain(from);
  writeFileSync(file, text.replace(from, to));
}

describe("patchbay plugin test", () => {
  it("passes for a bundled plugin from a fresh clone, with its shipped test.config.json", async () => {
    const cwd = tempDir("pb-plugin-test-bundled-");
    for (const name of ["noop-agent", "sqlite-skill-store"]) {
      const r = await runCli(["plugin", "test", path.join(ROOT, "plugins", name), "--json"], { cwd, timeoutMs: 120_000 });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, config_from: path.join(ROOT, "plugins", name, "test.config.json") });
    }
  });

  it("fails (exit 1) with the broken claim and its reason when a plugin breaks its contract", async () => {
    const { cwd, dir } = scaffold("mcp", "liar");
    edit(path.join(dir, "src", "index.ts"), "return TOOLS;", "return [...TOOLS, TOOLS[0]];");
    const r = await runCli(["plugin", "test", "liar", "--json"], { cwd, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ ok: false, plugin: { name: "liar", kind: "mcp", dir }, config_from: path.join(dir, "test.config.json") });
    const failed = doc.claims.filter((c: { ok: boolean }) => !c.ok);
    expect(failed.map((c: { claim: string }) => c.claim)).toContain("list_tools answers {name, description?, inputSchema?} with unique names");
    expect(JSON.stringify(failed)).toContain("twice");
    expect(doc.summary.failed).toBe(failed.length);

    const human = await runCli(["plugin", "test", "./plugins/liar"], { cwd, timeoutMs: 120_000 });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/✗ {2}list_tools answers/);
    expect(human.stdout).toMatch(/✓ {2}boots with the valid config/);
    expect(human.stdout).toMatch(/^FAILED: \d+ passed, [1-9]\d* failed/m);
  }, 360_000);

  it("takes the config from the connectors.json instance that names the plugin, before test.config.json", async () => {
    const { cwd, dir } = scaffold("local-model", "echo-model");
    // The fixture's config would fail (dimensions 1 is below the schema's minimum); the connectors.json entry is used instead.
    writeFileSync(path.join(dir, "test.config.json"), JSON.stringify({ config: { dimensions: 1 }, invalidConfig: null, invalidConfigReason: "in-process" }));
    mkdirSync(path.join(cwd, "conf"));
    const file = path.join(cwd, "conf", "connectors.json");
    writeFileSync(file, JSON.stringify({ plugins: ["../plugins"], localModels: { echo: { plugin: "echo-model", config: { dimensions: 8 } } } }));
    const r = await runCli(["plugin", "test", "echo-model", "--config", "conf/connectors.json", "--json"], { cwd, timeoutMs: 120_000 });
    const doc = JSON.parse(r.stdout);
    expect(doc.claims.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
    expect(r.code).toBe(0);
    expect(doc.config_from).toBe(`localModels/echo in ${file}`);
  }, 180_000);

  it("says what is missing when it cannot test (exit 2)", async () => {
    const { cwd, dir } = scaffold("skill-store", "notes");
    const notFound = await runCli(["plugin", "test", "nope"], { cwd });
    expect(notFound.code).toBe(2);
    expect(notFound.stderr).toContain("PB_ERR_PLUGIN_NOT_FOUND");
    const noFolder = await runCli(["plugin", "test", "./plugins/missing", "--json"], { cwd });
    expect(noFolder.code).toBe(2);
    expect(JSON.parse(noFolder.stdout).error.code).toBe("PB_ERR_PLUGIN_NOT_FOUND");

    writeFileSync(path.join(dir, "test.config.json"), JSON.stringify({ config: { file: "x.json" }, invalidconfig: null }));
    const typo = await runCli(["plugin", "test", "notes"], { cwd });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("PB_ERR_PLUGIN_TEST_FIXTURE");
    expect(typo.stderr).toContain('"invalidconfig"');

    writeFileSync(path.join(dir, "test.config.json"), JSON.stringify({ invalidConfig: null, invalidConfigReason: "none" }));
    const noConfig = await runCli(["plugin", "test", "notes"], { cwd });
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toContain('has no "config"');

    const missingArg = await runCli(["plugin", "test"], { cwd });
    expect(missingArg.code).toBe(2);
    expect(missingArg.stderr).toContain("PB_ERR_USAGE");
  }, 180_000);

  it("reports an invalid plugin.json as a plugin load error (exit 3)", async () => {
    const { cwd, dir } = scaffold("agent", "broken");
    writeFileSync(path.join(dir, "plugin.json"), JSON.stringify({ name: "broken", version: "1", kind: "agent", entry: "src/index.ts", patchbay: "^1" }));
    const r = await runCli(["plugin", "test", "./plugins/broken"], { cwd });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("PB_ERR_PLUGIN_MANIFEST_INVALID");
    expect(r.stderr).toContain("version must be semver");
  });

  it("names a plugin it cannot load by name with the load error, not as missing", async () => {
    const { cwd, dir } = scaffold("agent", "future");
    const manifest = JSON.parse(readFileSync(path.join(dir, "plugin.json"), "utf8"));
    writeFileSync(path.join(dir, "plugin.json"), JSON.stringify({ ...manifest, patchbay: "^2" }));
    const r = await runCli(["plugin", "test", "future"], { cwd });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("PB_ERR_PLUGIN_API_MISMATCH");
    expect(r.stderr).not.toContain("PB_ERR_PLUGIN_NOT_FOUND");
  });

  it("tests with the plugin's fixture, and says why, when the connectors.json it found is broken elsewhere", async () => {
    const { cwd } = scaffold("skill-store", "fixtured");
    writeFileSync(path.join(cwd, "connectors.json"), JSON.stringify({ skillStores: { other: { plugin: "fs-skill-store", config: { dir: "${UNSET_FOR_TEST}" } } } }));
    const r = await runCli(["plugin", "test", "fixtured"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("PB_ERR_CONFIG_ENV_MISSING");
    expect(r.stdout).toContain("test.config.json");
  });
});
