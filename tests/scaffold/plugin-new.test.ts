/**
 * `patchbay plugin new`: the name rule, refusing to overwrite, the three next steps, --dir,
 * --json, and that any kind with a template folder is scaffolded generically. The CLI cases
 * spawn the real bin; the name rule and the copier are also checked in-process.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pluginNameProblem, suggestPluginName } from "../../src/scaffold/names.js";
import { scaffoldPlugin } from "../../src/scaffold/scaffold.js";
import { cleanupTempDirs, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

/** Every file under `dir` with its bytes and mode: equal snapshots mean nothing was touched. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, rel);
    const info = statSync(full);
    out[rel] = info.isDirectory() ? `dir ${info.mode}` : `${info.mode} ${readFileSync(full, "base64")}`;
  }
  return out;
}

describe("plugin names", () => {
  it("accepts portable lower-case ids", () => {
    for (const name of ["github-issues", "a", "my.plugin_2", "x1", "a".repeat(64)])
      expect(pluginNameProblem(name), name).toBeNull();
  });

  it("refuses path characters, traversal, capitals, reserved and odd names, each with a reason", () => {
    const bad: Record<string, RegExp> = {
      "": /empty/,
      "../evil": /path separator/,
      "a/b": /path separator/,
      "a\\b": /path separator/,
      "..": /lower-case letter/,
      GitHub: /lower-case/,
      "my plugin": /lower-case/,
      "1abc": /start with a lower-case letter/,
      "-x": /start with a lower-case letter/,
      "x-": /end with a letter or digit/,
      "a..b": /two punctuation/,
      "a\u0000b": /lower-case/,
      con: /reserved/,
      "lpt1.x": /reserved/,
      ["a".repeat(65)]: /longer than 64/,
      café: /lower-case/,
    };
    for (const [name, why] of Object.entries(bad)) expect(pluginNameProblem(name), JSON.stringify(name)).toMatch(why);
  });

  it("suggests a valid name for a near miss", () => {
    expect(suggestPluginName("GitHub Issues")).toBe("github-issues");
    expect(suggestPluginName("Café Store!")).toBe("cafe-store");
    expect(suggestPluginName("../evil")).toBe("evil");
    expect(suggestPluginName("///")).toBeNull();
  });
});

describe("patchbay plugin new (the real bin)", () => {
  it("scaffolds into ./plugins/<name> and prints the three next steps", async () => {
    const cwd = tempDir();
    const r = await runCli(["plugin", "new", "mcp", "github-issues"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(cwd, "plugins", "github-issues", "plugin.json"))).toBe(true);
    expect(r.stdout).toContain("Created plugins/github-issues");
    const steps = r.stdout
      .slice(r.stdout.indexOf("Next steps:"))
      .split("\n")
      .filter((l) => /^\s+\d\. /.test(l));
    expect(steps).toHaveLength(3);
    expect(steps[0]).toContain(
      '1. Wire it: add {"mcpConnectors": {"github-issues": {"plugin": "github-issues"}}} to connectors.json',
    );
    expect(steps[0]).not.toContain('"plugins"'); // ./plugins is scanned by default
    expect(steps[1]).toContain("2. Check it: npx patchbay boot, then npx patchbay plugin test github-issues");
    expect(steps[2]).toContain("3. Make it yours:");
    expect(steps[2]).toContain("./plugins/github-issues/src/index.ts");
  });

  it("--json prints one document with the files, the connectors.json entry and the steps", async () => {
    const cwd = tempDir();
    const r = await runCli(["plugin", "new", "skill-store", "notes", "--json", "--dir", "vendor/plugins"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({
      ok: true,
      kind: "skill-store",
      name: "notes",
      section: "skillStores",
      dir: path.join(cwd, "vendor", "plugins", "notes"),
      connectors_entry: { skillStores: { notes: { plugin: "notes" } } },
      plugins_dir: "./vendor/plugins",
    });
    expect(doc.files).toEqual([...doc.files].sort());
    expect(doc.files).toEqual(
      expect.arrayContaining([
        "plugin.json",
        "src/index.ts",
        "tests/conformance.test.ts",
        "test.config.json",
        "README.md",
      ]),
    );
    expect(doc.next_steps).toHaveLength(3);
    expect(doc.next_steps[0]).toContain('list "./vendor/plugins" in its "plugins"');
    for (const f of doc.files) expect(existsSync(path.join(doc.dir, f)), f).toBe(true);
  });

  it('checks the plugin folder against the "plugins" list of the connectors.json boot would use', async () => {
    const cwd = tempDir();
    writeFileSync(path.join(cwd, "connectors.json"), JSON.stringify({ plugins: ["./vendor"] }));
    const scanned = await runCli(["plugin", "new", "agent", "a", "--dir", "vendor", "--json"], { cwd });
    expect(JSON.parse(scanned.stdout)).toMatchObject({ ok: true, plugins_dir: null });
    const unscanned = await runCli(["plugin", "new", "agent", "b", "--json"], { cwd });
    expect(JSON.parse(unscanned.stdout)).toMatchObject({ ok: true, plugins_dir: "./plugins" });
    // From a subfolder, "plugins" entries are relative to connectors.json's folder, not the working folder.
    mkdirSync(path.join(cwd, "sub"));
    const nested = await runCli(["plugin", "new", "agent", "c", "--json"], { cwd: path.join(cwd, "sub") });
    expect(JSON.parse(nested.stdout)).toMatchObject({
      ok: true,
      plugins_dir: "./sub/plugins",
      dir: path.join(cwd, "sub", "plugins", "c"),
    });
  });

  it("refuses to overwrite an existing folder (exit 2, nothing changed), even an empty one", async () => {
    const cwd = tempDir();
    const existing = path.join(cwd, "plugins", "taken");
    mkdirSync(path.join(existing, "src"), { recursive: true });
    writeFileSync(path.join(existing, "plugin.json"), '{"mine": true}\n');
    writeFileSync(path.join(existing, "src", "index.ts"), "// my work\n");
    const before = snapshot(cwd);
    const r = await runCli(["plugin", "new", "mcp", "taken"], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PB_ERR_SCAFFOLD_EXISTS");
    expect(r.stderr).toContain("Nothing was changed");
    expect(snapshot(cwd)).toEqual(before);

    mkdirSync(path.join(cwd, "plugins", "empty"));
    const r2 = await runCli(["plugin", "new", "agent", "empty", "--json"], { cwd });
    expect(r2.code).toBe(2);
    expect(JSON.parse(r2.stdout)).toMatchObject({ ok: false, error: { code: "PB_ERR_SCAFFOLD_EXISTS" } });
    expect(readdirSync(path.join(cwd, "plugins", "empty"))).toEqual([]);
  });

  it("refuses a --dir through a file, or one that cannot be created, as the user's to fix (exit 2), without hanging", async () => {
    const cwd = tempDir();
    writeFileSync(path.join(cwd, "afile"), "mine\n");
    for (const dir of ["afile", "afile/deeper"]) {
      const r = await runCli(["plugin", "new", "mcp", "a", "--dir", dir, "--json"], { cwd });
      expect(r.code, dir).toBe(2);
      expect(JSON.parse(r.stdout).error, dir).toMatchObject({
        code: "PB_ERR_SCAFFOLD_EXISTS",
        message: expect.stringContaining(`${path.join(cwd, "afile")} is a file`),
      });
    }
    // Node 20's recursive mkdirSync spins for ever under /proc; each level is made alone instead.
    const proc = await runCli(["plugin", "new", "mcp", "a", "--dir", "/proc/patchbay-test/x"], {
      cwd,
      timeoutMs: 20_000,
    });
    expect(proc.code).toBe(2);
    expect(proc.stderr).toContain("PB_ERR_USAGE");
    expect(proc.stderr).toContain("Cannot create the folder /proc/patchbay-test/x (ENOENT)");
    expect(readdirSync(cwd)).toEqual(["afile"]);
  });

  it("refuses a bad name with a suggestion and creates nothing", async () => {
    const cwd = tempDir();
    for (const name of ["../escape", "My Plugin", "a/b"]) {
      const r = await runCli(["plugin", "new", "mcp", name], { cwd });
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toContain("PB_ERR_SCAFFOLD_NAME");
    }
    const r = await runCli(["plugin", "new", "mcp", "My Plugin", "--json"], { cwd });
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "PB_ERR_SCAFFOLD_NAME",
      data: { suggestion: "my-plugin" },
    });
    expect(readdirSync(cwd)).toEqual([]);
    expect(existsSync(path.join(cwd, "..", "escape"))).toBe(false);
  });

  it("refuses an unknown kind (listing the kinds) and a wrong command line", async () => {
    const cwd = tempDir();
    const r = await runCli(["plugin", "new", "database", "x"], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PB_ERR_SCAFFOLD_KIND");
    expect(r.stderr).toMatch(/memory-store, local-model, mcp, agent, skill-store/);
    const missing = await runCli(["plugin", "new", "mcp"], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("PB_ERR_USAGE");
    const flag = await runCli(["plugin", "new", "mcp", "x", "--force"], { cwd });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("does not take --force");
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("--help shows the command's usage", async () => {
    const r = await runCli(["plugin", "new", "--help"], { cwd: tempDir() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: patchbay plugin new <kind> <name> [--dir D] [--json]");
  });

  it("says when the project's vitest cannot resolve patchbay/testing yet, and not once it can", async () => {
    const cwd = tempDir();
    const bare = JSON.parse((await runCli(["plugin", "new", "mcp", "one", "--json"], { cwd })).stdout);
    expect(bare.vitest_note).toContain("patchbay init");
    writeFileSync(path.join(cwd, "vitest.config.ts"), "export default {};\n");
    const unmapped = await runCli(["plugin", "new", "mcp", "two"], { cwd });
    expect(unmapped.stdout).toContain('vitest.config.ts does not map "patchbay/*"');
    writeFileSync(
      path.join(cwd, "vitest.config.ts"),
      'export default { resolve: { alias: [{ find: /^patchbay\\/(plugin|adapter|testing)$/, replacement: "patchbay-host/$1" }] } };\n',
    );
    const mapped = JSON.parse((await runCli(["plugin", "new", "mcp", "three", "--json"], { cwd })).stdout);
    expect(mapped.vitest_note).toBeUndefined();
    // plugin new never writes outside the plugin folder: the config stays the user's.
    expect(readdirSync(cwd).sort()).toEqual(["plugins", "vitest.config.ts"]);
  });
});

describe("the copier", () => {
  it("scaffolds any kind that has a template folder, filling placeholders in names and text", () => {
    const templates = tempDir();
    const adapter = path.join(templates, "adapter");
    mkdirSync(path.join(adapter, "fixtures"), { recursive: true });
    writeFileSync(
      path.join(adapter, "plugin.json"),
      '{"name":"__NAME__","kind":"__KIND__","patchbay":"__API_RANGE__"}',
    );
    writeFileSync(path.join(adapter, "fixtures", "__NAME__.json"), '{"section":"__SECTION__","keep":"__UNKNOWN__"}');
    writeFileSync(path.join(adapter, "logo.bin"), Buffer.from([0x5f, 0x5f, 0x4e, 0x41, 0x4d, 0x45, 0x5f, 0x5f, 0xff]));
    const parent = tempDir();
    const result = scaffoldPlugin({ kind: "adapter", name: "my-client", parentDir: parent, templatesRoot: templates });
    expect(result).toMatchObject({
      kind: "adapter",
      section: "adapters",
      files: ["fixtures/my-client.json", "logo.bin", "plugin.json"],
    });
    expect(JSON.parse(readFileSync(path.join(result.dir, "plugin.json"), "utf8"))).toEqual({
      name: "my-client",
      kind: "adapter",
      patchbay: "^1",
    });
    // Unknown placeholders stay as written (the template tests catch them); binary files are copied byte for byte.
    expect(readFileSync(path.join(result.dir, "fixtures", "my-client.json"), "utf8")).toBe(
      '{"section":"adapters","keep":"__UNKNOWN__"}',
    );
    expect(readFileSync(path.join(result.dir, "logo.bin"))).toEqual(readFileSync(path.join(adapter, "logo.bin")));
    expect(() => scaffoldPlugin({ kind: "mcp", name: "x", parentDir: parent, templatesRoot: templates })).toThrow(
      /no template/,
    );
  });

  it("removes what it wrote when the copy fails half-way", () => {
    const templates = tempDir();
    mkdirSync(path.join(templates, "mcp"));
    writeFileSync(path.join(templates, "mcp", "plugin.json"), "{}");
    // With the name "mcp" both files become mcp.md: the second write fails, as a full disk would.
    writeFileSync(path.join(templates, "mcp", "__KIND__.md"), "a");
    writeFileSync(path.join(templates, "mcp", "__NAME__.md"), "b");
    const parent = tempDir();
    expect(() => scaffoldPlugin({ kind: "mcp", name: "mcp", parentDir: parent, templatesRoot: templates })).toThrow(
      /EEXIST/,
    );
    expect(readdirSync(parent)).toEqual([]);
  });
});
