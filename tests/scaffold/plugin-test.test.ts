/**
 * `patchbay plugin test` beyond the happy path (templates.test.ts proves every template
 * passes): a plugin that breaks its contract fails with the claim and the reason (exit 1), and
 * what it cannot test is a usage error (exit 2) that says what to do.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
      const r = await runCli(["plugin", "test", path.join(ROOT, "plugins", name), "--json"], {
        cwd,
        timeoutMs: 120_000,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        ok: true,
        config_from: path.join(ROOT, "plugins", name, "test.config.json"),
      });
    }
  });

  it("fails (exit 1) with the broken claim and its reason when a plugin breaks its contract", async () => {
    const { cwd, dir } = scaffold("mcp", "liar");
    edit(path.join(dir, "src", "index.ts"), "return TOOLS;", "return [...TOOLS, TOOLS[0]];");
    const r = await runCli(["plugin", "test", "liar", "--json"], { cwd, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      ok: false,
      plugin: { name: "liar", kind: "mcp", dir },
      config_from: path.join(dir, "test.config.json"),
    });
    const failed = doc.claims.filter((c: { ok: boolean }) => !c.ok);
    expect(failed.map((c: { claim: string }) => c.claim)).toContain(
      "list_tools answers {name, description?, inputSchema?} with unique names",
    );
    expect(JSON.stringify(failed)).toContain("twice");
    expect(doc.summary.failed).toBe(failed.length);

    const human = await runCli(["plugin", "test", "./plugins/liar"], { cwd, timeoutMs: 120_000 });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/✗ {2}list_tools answers/);
    expect(human.stdout).toMatch(/✓ {2}boots with the valid config/);
    expect(human.stdout).toMatch(/^FAILED: \d+ passed, [1-9]\d* failed/m);
  }, 360_000);

  it("never writes into the store of a connectors.json instance that wires the plugin: it tests with test.config.json, and says so", async () => {
    const { cwd } = scaffold("skill-store", "notes");
    const live = path.join(cwd, "live", "skills.json");
    mkdirSync(path.dirname(live));
    writeFileSync(live, "{}");
    const file = path.join(cwd, "connectors.json");
    writeFileSync(file, JSON.stringify({ skillStores: { primary: { plugin: "notes", config: { file: live } } } }));
    const r = await runCli(["plugin", "test", "notes", "--json"], { cwd, timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.config_from).toBe(path.join(cwd, "plugins", "notes", "test.config.json"));
    expect(doc.instances_not_used).toEqual(["skillStores/primary"]);
    // The kit wrote and deleted skills; none of that reached the live store.
    expect(readFileSync(live, "utf8")).toBe("{}");
    expect(existsSync(path.join(cwd, "skills"))).toBe(false);

    const human = await runCli(["plugin", "test", "notes"], { cwd, timeoutMs: 120_000 });
    expect(human.stdout).toMatch(/config: plugins\/notes\/test\.config\.json, in a throwaway folder/);
    expect(human.stdout).toContain("not skillStores/primary from connectors.json");
  }, 240_000);

  it("prints one coded error for a plugin that cannot start, not a failed row per claim", async () => {
    const { cwd, dir } = scaffold("memory-store", "crashy");
    writeFileSync(
      path.join(dir, "src", "index.ts"),
      readFileSync(path.join(dir, "src", "index.ts"), "utf8") + "\nthrow new Error('boom at load');\n",
    );
    const r = await runCli(["plugin", "test", "crashy"], { cwd, timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).not.toBe(0);
    expect(r.stdout).not.toContain("not run");
    expect(r.stderr.match(/PB_ERR_[A-Z_]+/g)?.length, r.stderr).toBeGreaterThan(0);
    expect(r.stderr).toContain("boom at load");
    const json = await runCli(["plugin", "test", "crashy", "--json"], { cwd, timeoutMs: 120_000 });
    expect(JSON.parse(json.stdout).error.code).toMatch(/^PB_ERR_PLUGIN_/);
  }, 240_000);

  it("says what is missing when it cannot test (exit 2)", async () => {
    const { cwd, dir } = scaffold("skill-store", "notes");
    const notFound = await runCli(["plugin", "test", "nope"], { cwd });
    expect(notFound.code).toBe(2);
    expect(notFound.stderr).toContain("PB_ERR_PLUGIN_NOT_FOUND");
    const noFolder = await runCli(["plugin", "test", "./plugins/missing", "--json"], { cwd });
    expect(noFolder.code).toBe(2);
    expect(JSON.parse(noFolder.stdout).error.code).toBe("PB_ERR_PLUGIN_NOT_FOUND");

    writeFileSync(
      path.join(dir, "test.config.json"),
      JSON.stringify({ config: { file: "x.json" }, invalidconfig: null }),
    );
    const typo = await runCli(["plugin", "test", "notes"], { cwd });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("PB_ERR_PLUGIN_TEST_FIXTURE");
    expect(typo.stderr).toContain('"invalidconfig"');

    writeFileSync(
      path.join(dir, "test.config.json"),
      JSON.stringify({ invalidConfig: null, invalidConfigReason: "none" }),
    );
    const noConfig = await runCli(["plugin", "test", "notes"], { cwd });
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toContain('has no "config"');

    // Not even when connectors.json wires the plugin: its instance's store is live.
    writeFileSync(
      path.join(cwd, "connectors.json"),
      JSON.stringify({ skillStores: { notes: { plugin: "notes", config: { file: "live.json" } } } }),
    );
    const wired = await runCli(["plugin", "test", "notes"], { cwd });
    expect(wired.code).toBe(2);
    expect(wired.stderr).toContain("never borrows a connectors.json instance's config");

    const missingArg = await runCli(["plugin", "test"], { cwd });
    expect(missingArg.code).toBe(2);
    expect(missingArg.stderr).toContain("PB_ERR_USAGE");

    // A config the schema refuses is said in the fixture's terms, not of the kit's own instance.
    writeFileSync(
      path.join(dir, "test.config.json"),
      JSON.stringify({ config: { file: 5 }, invalidConfig: null, invalidConfigReason: "none" }),
    );
    const badConfig = await runCli(["plugin", "test", "notes"], { cwd });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain("PB_ERR_INSTANCE_CONFIG_INVALID: test.config.json's config");
    expect(badConfig.stderr).toMatch(/\n  \/config\/file: /);
    expect(badConfig.stderr).toContain(`file: ${path.join("plugins", "notes", "test.config.json")}`);
    expect(badConfig.stderr).toContain('hint: Fix the fields named under "config" in test.config.json');
    expect(badConfig.stderr).not.toContain("skillStores/kit");
  }, 180_000);

  it("reports an invalid plugin.json as a plugin load error (exit 3)", async () => {
    const { cwd, dir } = scaffold("agent", "broken");
    writeFileSync(
      path.join(dir, "plugin.json"),
      JSON.stringify({ name: "broken", version: "1", kind: "agent", entry: "src/index.ts", patchbay: "^1" }),
    );
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
    writeFileSync(
      path.join(cwd, "connectors.json"),
      JSON.stringify({ skillStores: { other: { plugin: "fs-skill-store", config: { dir: "${UNSET_FOR_TEST}" } } } }),
    );
    const r = await runCli(["plugin", "test", "fixtured"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("PB_ERR_CONFIG_ENV_MISSING");
    expect(r.stdout).toContain("test.config.json");
  });
});
