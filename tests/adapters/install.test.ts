/**
 * `patchbay adapter install|uninstall` with real files: idempotent, reversible byte for byte,
 * ownership by content hash (an edit anywhere inside a tree keeps the whole tree), merge files
 * never deleted, dry runs write nothing, a corrupt record fails closed, conflicts are refused,
 * and a rerun after a crash between the writes and the record completes.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { installAdapter, uninstallAdapter } from "../../src/adapter/install/index.js";
import { assertRunner, composePlan } from "../../src/adapter/install/plan.js";
import { mergeJson, unmergeJson } from "../../src/adapter/install/json-merge.js";
import { diffSnapshots, snapshot } from "../../src/testing/adapter-sandbox.js";
import { cleanupTempDirs, ROOT, tempDir } from "../helpers.js";
import { makeWorld, type World } from "./_world.js";

afterAll(cleanupTempDirs);

function fxWorld(mode = "ok"): World {
  return makeWorld({ adapters: { fx: { plugin: "fx-adapter", config: { mode } } } });
}
const snap = (w: World) => snapshot([w.home, w.project], (k) => k.endsWith("hooks.log"));
const install = (w: World, dryRun = false) =>
  installAdapter({ config: w.configFile, env: w.env, instance: "fx", dryRun });
const uninstall = (w: World, dryRun = false) =>
  uninstallAdapter({ config: w.configFile, env: w.env, instance: "fx", dryRun });
const cfgFile = (w: World) => path.join(w.home, ".fxclient", "config.json");
const tree = (w: World) => path.join(w.home, ".fxclient", "skills", "fx");

describe("install", () => {
  it("twice is byte-identical to once (the record included), and reports unchanged", async () => {
    const w = fxWorld();
    expect((await install(w)).status).toBe("installed");
    const once = snap(w);
    const again = await install(w);
    expect(again.status).toBe("unchanged");
    expect(again.changes.every((c) => c.action === "unchanged")).toBe(true);
    expect(diffSnapshots(once, snap(w))).toEqual([]);
  });

  it("a dry run writes nothing — no file, folder, record or cache — and lists what install then writes", async () => {
    const w = fxWorld();
    const before = snap(w);
    const plan = await install(w, true);
    expect(plan.status).toBe("planned");
    expect(diffSnapshots(before, snap(w))).toEqual([]);
    expect(existsSync(w.stateDir)).toBe(false);
    const done = await install(w);
    expect(done.changes).toEqual(plan.changes);
  });

  it("via the CLI: --json, and the hook command written is absolute, exists and exits 0", async () => {
    const w = fxWorld();
    const r = await w.cli(["adapter", "install", "fx", "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.adapters[0]).toMatchObject({
      instance: "fx",
      status: "installed",
      client: { present: true, version: "9.9.9" },
    });
    const cfg = JSON.parse(readFileSync(cfgFile(w), "utf8"));
    const command: string = cfg.hooks[0].command;
    const shim = path.join(w.stateDir, "adapters", "fx", "hook");
    expect(command).toBe(`${shim} tool`);
    expect(existsSync(shim)).toBe(true);
    const hooked = await w.cli(["hook", "fx", "tool"], {
      input: JSON.stringify({ kind: "beforeTool", session: "s", cwd: "/tmp", tool: "write", target: "/tmp/x" }),
    });
    expect(hooked.code).toBe(0);
  });

  it("an adapter connectors.json does not name: exit 2, and the hint shows the entry to add", async () => {
    const w = fxWorld();
    const r = await w.cli(["adapter", "install", "claude-code"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PB_ERR_ADAPTER_UNKNOWN: No adapter instance "claude-code"');
    expect(r.stderr).toContain(
      'hint: Add the instance to connectors.json, e.g. "adapters": { "claude-code": { "plugin": "claude-code" } }',
    );
  });

  it("skips a client that is not installed, with the reason, writing nothing", async () => {
    const w = fxWorld();
    rmSync(path.join(w.bin, "fxclient"));
    const before = snap(w);
    const r = await install(w);
    expect(r.status).toBe("skipped");
    expect(r.reason).toMatch(/not installed on this machine.*fxclient was not found on PATH/);
    expect(diffSnapshots(before, snap(w))).toEqual([]);
  });

  it("refuses a path that exists and is not Patchbay's, writing nothing of that artifact", async () => {
    const w = fxWorld("plan-file");
    mkdirSync(path.dirname(cfgFile(w)), { recursive: true });
    writeFileSync(path.join(w.home, ".fxclient", "rule.md"), "the user's own rule\n");
    const r = await install(w);
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "PB_ERR_INSTALL_CONFLICT", message: expect.stringContaining("rule.md") });
    expect(readFileSync(path.join(w.home, ".fxclient", "rule.md"), "utf8")).toBe("the user's own rule\n");
  });

  it("refuses a plan outside the home, project and state folders, or with overlapping artifacts", async () => {
    for (const [mode, message] of [
      ["plan-outside", /outside the home/],
      ["plan-overlap", /overlap/],
    ] as const) {
      const w = fxWorld(mode);
      const r = await install(w);
      expect(r.status).toBe("failed");
      expect(r.error).toMatchObject({ code: "PB_ERR_INSTALL_PLAN_INVALID", message: expect.stringMatching(message) });
      expect(existsSync(w.stateDir)).toBe(false);
    }
  });

  it("refuses to install when the hook runner does not exist, writing nothing", async () => {
    // A copy of this build whose package has no bin/patchbay.mjs: the runner every hook shim would exec.
    const pkg = path.join(tempDir("pb-no-runner-"), "patchbay");
    mkdirSync(pkg);
    cpSync(path.join(ROOT, "dist"), path.join(pkg, "dist"), { recursive: true });
    cpSync(path.join(ROOT, "package.json"), path.join(pkg, "package.json"));
    symlinkSync(path.join(ROOT, "node_modules"), path.join(pkg, "node_modules"), "dir");
    const w = fxWorld();
    const before = snap(w);
    const script = `const { installAdapter } = await import(${JSON.stringify(pathToFileURL(path.join(pkg, "dist", "adapter", "install", "index.js")).href)});
      const r = await installAdapter({ config: ${JSON.stringify(w.configFile)}, env: ${JSON.stringify(w.env)}, instance: "fx" });
      process.stdout.write(JSON.stringify(r));`;
    writeFileSync(path.join(pkg, "install.mjs"), script);
    const out = execFileSync(process.execPath, [path.join(pkg, "install.mjs")], {
      cwd: w.project,
      encoding: "utf8",
      timeout: 30_000,
    });
    const r = JSON.parse(out);
    expect(r).toMatchObject({
      status: "failed",
      error: {
        code: "PB_ERR_INSTALL_RUNNER_MISSING",
        message: expect.stringContaining(path.join(pkg, "bin", "patchbay.mjs")),
      },
    });
    expect(r.changes).toEqual([]);
    expect(diffSnapshots(before, snap(w))).toEqual([]);
    // This build has its runner, and its plan puts Patchbay's own shim first.
    expect(() => assertRunner()).not.toThrow();
    const env = {
      instance: "x",
      home: "/h",
      projectDir: "/p",
      stateDir: "/p/.patchbay",
      platform: "linux-x64",
      hookCommand: "/p/.patchbay/adapters/x/hook",
      client: { present: true, path: null, version: null },
    };
    expect(
      composePlan(
        env,
        { artifacts: [] },
        { instance: "x", configFile: "/p/connectors.json", stateDir: "/p/.patchbay" },
      )[0],
    ).toMatchObject({ kind: "tree", path: "/p/.patchbay/adapters/x" });
  });

  it("several adapters in one command: one failing does not stop the other; exit 1", async () => {
    const w = makeWorld({
      adapters: { fx: { plugin: "fx-adapter" }, bad: { plugin: "fx-adapter", config: { mode: "plan-outside" } } },
    });
    const r = await w.cli(["adapter", "install", "bad", "fx", "--json"]);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).adapters.map((a: { status: string }) => a.status)).toEqual(["failed", "installed"]);
  });
});

describe("uninstall", () => {
  it("restores the original bytes when nothing existed; a second uninstall changes nothing", async () => {
    const w = fxWorld();
    const before = snap(w);
    await install(w);
    const u = await uninstall(w);
    expect(u.status).toBe("uninstalled");
    expect(diffSnapshots(before, snap(w))).toEqual([]);
    expect((await uninstall(w)).status).toBe("not-installed");
    expect(diffSnapshots(before, snap(w))).toEqual([]);
  });

  it("restores a user's client config byte for byte, whatever its formatting, and never deletes it", async () => {
    for (const original of [
      '{\n    "theme": "dark",\n    "hooks": [\n        {\n            "command": "mine"\n        }\n    ]\n}',
      '{"theme":"dark"}\n',
      '{ "theme" : "dark", "n": 1.50 }\n',
    ]) {
      const w = fxWorld();
      mkdirSync(path.dirname(cfgFile(w)), { recursive: true });
      writeFileSync(cfgFile(w), original);
      const before = snap(w);
      await install(w);
      expect(JSON.parse(readFileSync(cfgFile(w), "utf8")).theme).toBe("dark");
      const u = await uninstall(w);
      expect(u.restored).toEqual([cfgFile(w)]);
      expect(readFileSync(cfgFile(w), "utf8")).toBe(original);
      expect(diffSnapshots(before, snap(w))).toEqual([]);
    }
  });

  it("keeps a user's later edit of the merge file and takes out only Patchbay's entries", async () => {
    const w = fxWorld();
    await install(w);
    const cfg = JSON.parse(readFileSync(cfgFile(w), "utf8"));
    cfg.hooks.push({ command: "user-added" });
    cfg.editor = "vim";
    writeFileSync(cfgFile(w), JSON.stringify(cfg, null, 2) + "\n");
    const u = await uninstall(w);
    expect(u.restored).toEqual([cfgFile(w)]);
    expect(JSON.parse(readFileSync(cfgFile(w), "utf8"))).toEqual({ hooks: [{ command: "user-added" }], editor: "vim" });
  });

  it("an edit anywhere inside a tree keeps the whole tree (containment, not path equality)", async () => {
    const w = fxWorld();
    await install(w);
    writeFileSync(path.join(tree(w), "docs", "deep", "NOTES.md"), "my notes\n");
    const u = await uninstall(w);
    expect(u.kept).toEqual([tree(w)]);
    expect(readFileSync(path.join(tree(w), "SKILL.md"), "utf8")).toBe("# fx\n");
    expect(readFileSync(path.join(tree(w), "docs", "deep", "NOTES.md"), "utf8")).toBe("my notes\n");
    // The client config Patchbay created (untouched) and the unedited shim tree are still removed.
    expect(u.removed).toEqual(expect.arrayContaining([cfgFile(w), path.join(w.stateDir, "adapters", "fx")]));
    expect(existsSync(cfgFile(w))).toBe(false);
  });

  it("a new file or an empty folder inside a tree counts as an edit too", async () => {
    for (const edit of [
      (t: string) => writeFileSync(path.join(t, "mine.md"), "x"),
      (t: string) => mkdirSync(path.join(t, "empty")),
    ]) {
      const w = fxWorld();
      await install(w);
      edit(tree(w));
      expect((await uninstall(w)).kept).toEqual([tree(w)]);
      expect(existsSync(path.join(tree(w), "SKILL.md"))).toBe(true);
    }
  });

  it("an edited file artifact is kept; an unedited one removed", async () => {
    const w = fxWorld("plan-file");
    await install(w);
    writeFileSync(path.join(w.home, ".fxclient", "rule.md"), "rule v1, edited\n");
    const u = await uninstall(w);
    expect(u.kept).toEqual([path.join(w.home, ".fxclient", "rule.md")]);
    expect(u.removed).toContain(tree(w));
  });

  it("a dry run changes nothing", async () => {
    const w = fxWorld();
    await install(w);
    const before = snap(w);
    const plan = await uninstall(w, true);
    expect(plan.status).toBe("planned");
    expect(plan.removed.length).toBeGreaterThan(0);
    expect(diffSnapshots(before, snap(w))).toEqual([]);
  });

  it("works from the record alone, even when the adapter is gone from connectors.json", async () => {
    const w = fxWorld();
    await install(w);
    w.writeConfig({});
    expect((await uninstall(w)).status).toBe("uninstalled");
    expect(existsSync(tree(w))).toBe(false);
    expect(existsSync(cfgFile(w))).toBe(false);
    expect(existsSync(w.stateDir)).toBe(false);
  });
});

describe("the install record", () => {
  it("corrupt or of an unknown version: install and uninstall fail closed, nothing written or deleted", async () => {
    for (const bad of [
      "{ not json",
      JSON.stringify({ schemaVersion: 9, adapters: {} }),
      JSON.stringify({ schemaVersion: 1, adapters: { fx: { artifacts: "no" } } }),
    ]) {
      const w = fxWorld();
      await install(w);
      writeFileSync(path.join(w.stateDir, "installs.json"), bad);
      const before = snap(w);
      await expect(uninstall(w)).rejects.toMatchObject({ code: "PB_ERR_INSTALL_RECORD_CORRUPT" });
      const again = await install(w);
      expect(again).toMatchObject({ status: "failed", error: { code: "PB_ERR_INSTALL_RECORD_CORRUPT" } });
      expect(diffSnapshots(before, snap(w))).toEqual([]);
      const cli = await w.cli(["adapter", "uninstall", "fx"]);
      expect(cli.code).toBe(1);
      expect(cli.stderr).toContain("PB_ERR_INSTALL_RECORD_CORRUPT");
    }
  });

  it("a crash between the writes and the record: the rerun completes, and uninstall then removes everything", async () => {
    const w = fxWorld();
    const before = snap(w);
    await install(w);
    rmSync(path.join(w.stateDir, "installs.json")); // as if the process died before recording
    const rerun = await install(w);
    expect(rerun.status).toBe("unchanged");
    expect(JSON.parse(readFileSync(cfgFile(w), "utf8")).hooks).toHaveLength(1);
    await uninstall(w);
    expect(existsSync(tree(w))).toBe(false);
    // The entry is Patchbay's (it equals what the plan declares); only which containers it created was lost with the record.
    expect(JSON.parse(readFileSync(cfgFile(w), "utf8"))).toEqual({ hooks: [] });
    // Folders created before the crash are not known to be Patchbay's any more: left (empty), never removed blindly.
    expect(diffSnapshots(before, snap(w)).filter((d) => !/\.fxclient|\.patchbay/.test(d))).toEqual([]);
  });
});

describe("json merge", () => {
  it("appends once, keeps the file's style, removes only what it owns and the containers it created once empty", () => {
    const original = '{\n\t"a": 1,\n\t"hooks": {\n\t\t"pre": [\n\t\t\t"user"\n\t\t]\n\t}\n}\n';
    const entries = [
      { at: ["hooks", "pre"], append: "ours" },
      { at: ["hooks", "post"], append: { c: 1 } },
    ];
    const m = mergeJson(original, entries, "f");
    expect(m.text).toBe(
      '{\n\t"a": 1,\n\t"hooks": {\n\t\t"pre": [\n\t\t\t"user",\n\t\t\t"ours"\n\t\t],\n\t\t"post": [\n\t\t\t{\n\t\t\t\t"c": 1\n\t\t\t}\n\t\t]\n\t}\n}\n',
    );
    expect(mergeJson(m.text, entries, "f")).toMatchObject({ changed: false, text: m.text, added: [] });
    expect(unmergeJson(m.text, entries, m.createdContainers, "f").text).toBe(original);
    expect(() => mergeJson('{"hooks": "oops"}', entries, "f")).toThrow(/not an object/);
    expect(() => mergeJson("[1]", entries, "f")).toThrow(/JSON object/);
  });
});
