import path from "node:path";
import { describe, expect, it } from "vitest";
import { PatchbayError } from "../../src/errors.js";
import { loadConfig, resolveConfigPath } from "../../src/config/load.js";
import { caught, tempProject } from "./fixtures.js";

const marked = (tag: string) => ({ memoryStores: { [tag]: { plugin: "sqlite-memory" } } });
const names = (cfg: { instances: readonly { name: string }[] }) => cfg.instances.map((i) => i.name);

describe("discovery order", () => {
  it("--config beats PATCHBAY_CONFIG beats the search from cwd", async () => {
    const p = tempProject();
    p.write("connectors.json", marked("fromcwd"));
    p.write("env/connectors.json", marked("fromenv"));
    p.write("opt/my.json", marked("fromoption"));
    const env = { PATCHBAY_CONFIG: "env/connectors.json" };

    const byOption = await loadConfig({ config: "opt/my.json", cwd: p.root, env });
    expect(names(byOption)).toEqual(["fromoption"]);
    expect(byOption.file).toBe(path.join(p.root, "opt/my.json"));
    expect(byOption.dir).toBe(path.join(p.root, "opt"));

    expect(names(await loadConfig({ cwd: p.root, env }))).toEqual(["fromenv"]);
    expect(names(await loadConfig({ cwd: p.root, env: {} }))).toEqual(["fromcwd"]);
    expect(resolveConfigPath({ cwd: p.root, env }).via).toBe("env");
  });

  it("walks up from a nested folder to the nearest connectors.json", async () => {
    const p = tempProject();
    const file = p.write("connectors.json", marked("top"));
    const deep = p.mkdir("a/b/c");
    const cfg = await loadConfig({ cwd: deep, env: {} });
    expect(cfg.file).toBe(file);
    expect(names(cfg)).toEqual(["top"]);
    expect(resolveConfigPath({ cwd: deep, env: {} })).toEqual({ file, via: "search" });
  });

  it("stops at the folder holding .git, and says where it looked", async () => {
    const outer = tempProject({ git: false });
    outer.write("connectors.json", marked("outside"));
    outer.mkdir("repo/.git");
    const cwd = outer.mkdir("repo/src");
    const err = await caught(() => loadConfig({ cwd, env: {} }));
    expect(err).toBeInstanceOf(PatchbayError);
    expect(err.code).toBe("PB_ERR_CONFIG_NOT_FOUND");
    expect(err.message).toContain(cwd);
    expect(err.message).toContain(path.join(outer.root, "repo"));
    expect(err.data.searched).toEqual([cwd, path.join(outer.root, "repo")]);
  });

  it("an explicit path or PATCHBAY_CONFIG that does not exist is an error, not a fallback", async () => {
    const p = tempProject();
    p.write("connectors.json", marked("fromcwd"));
    const byOption = await caught(() => loadConfig({ config: "nope.json", cwd: p.root, env: {} }));
    expect(byOption.code).toBe("PB_ERR_CONFIG_NOT_FOUND");
    expect(byOption.message).toContain(path.join(p.root, "nope.json"));
    expect(byOption.data.file).toBe(path.join(p.root, "nope.json"));

    const byEnv = await caught(() => loadConfig({ cwd: p.root, env: { PATCHBAY_CONFIG: "missing.json" } }));
    expect(byEnv.code).toBe("PB_ERR_CONFIG_NOT_FOUND");
    expect(byEnv.message).toContain("PATCHBAY_CONFIG");
  });

  it("accepts an already-parsed object, with dir as its base folder", async () => {
    const p = tempProject();
    const cfg = await loadConfig({
      config: { plugins: ["./vendor"], ...marked("obj") },
      dir: "sub",
      cwd: p.root,
      env: {},
    });
    expect(cfg.file).toBeNull();
    expect(cfg.dir).toBe(path.join(p.root, "sub"));
    expect(cfg.pluginDirs).toEqual([path.join(p.root, "sub/vendor")]);
  });
});

describe("parse errors", () => {
  it("names the line and column, without quoting the file's text", async () => {
    const p = tempProject();
    p.write("connectors.json", '{\n  "memoryStores": {\n    "a": { "plugin": "x", }\n  }\n}\n');
    const err = await caught(() => loadConfig({ cwd: p.root, env: {} }));
    expect(err.code).toBe("PB_ERR_CONFIG_PARSE");
    expect(err.data).toMatchObject({ file: path.join(p.root, "connectors.json"), line: 3, column: 27 });
    expect(err.message).toContain("connectors.json:3:27");
    expect(err.message).not.toContain('"plugin"');
  });

  it("reports an unexpected token and a truncated file", async () => {
    const p = tempProject();
    p.write("connectors.json", '{\n  "a": }');
    expect((await caught(() => loadConfig({ cwd: p.root, env: {} }))).data).toMatchObject({ line: 2, column: 8 });
    p.write("connectors.json", '{"a": [1,');
    expect((await caught(() => loadConfig({ cwd: p.root, env: {} }))).data).toMatchObject({ line: 1, column: 10 });
  });
});
