import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { caught, tempProject } from "./fixtures.js";

const load = (config: Record<string, unknown>, env: Record<string, string> = {}) =>
  loadConfig({ config, cwd: "/", env });

describe("strict keys", () => {
  it("rejects an unknown key with its pointer and a did-you-mean", async () => {
    const err = await caught(() =>
      load({ mcpConnectors: { primary: { plugin: "mcp-remote", allowed_tool: ["search"] } } }),
    );
    expect(err.code).toBe("PB_ERR_CONFIG_INVALID");
    expect(err.data.issues).toEqual([
      {
        pointer: "/mcpConnectors/primary/allowed_tool",
        message: 'unknown key "allowed_tool" (did you mean "allowed_tools"?)',
      },
    ]);
    expect(err.message).toContain(
      '/mcpConnectors/primary/allowed_tool: unknown key "allowed_tool" (did you mean "allowed_tools"?)',
    );
  });

  it("suggests at the top level and in defaults, and lists every problem at once", async () => {
    const err = await caught(() =>
      load({ memoryStore: {}, defaults: { timeout: 5 }, localModels: { m: { plugin: 5 } } }),
    );
    const byPointer = Object.fromEntries(
      err.data.issues.map((i: { pointer: string; message: string }) => [i.pointer, i.message]),
    );
    expect(byPointer["/memoryStore"]).toContain('did you mean "memoryStores"?');
    expect(byPointer["/defaults/timeout"]).toContain('did you mean "timeout_ms"?');
    expect(byPointer["/localModels/m/plugin"]).toMatch(/expected string/);
    expect(err.message.split("\n")).toHaveLength(4);
  });

  it("rejects allowed_tools and identity outside mcpConnectors with a clear message", async () => {
    const err = await caught(() => load({ localModels: { m: { plugin: "ollama", allowed_tools: [], identity: {} } } }));
    expect(err.data.issues).toEqual([
      {
        pointer: "/localModels/m/allowed_tools",
        message: '"allowed_tools" is only allowed on mcpConnectors instances, not in localModels',
      },
      {
        pointer: "/localModels/m/identity",
        message: '"identity" is only allowed on mcpConnectors instances, not in localModels',
      },
    ]);
  });

  it("checks instance names, plugin names, numbers and grants", async () => {
    const err = await caught(() =>
      load({
        memoryStores: {
          "../up": { plugin: "x" },
          ok: { plugin: "a/b", timeout_ms: 0, max_memory_mb: 8, grants: ["nowhere"] },
        },
      }),
    );
    const pointers = err.data.issues.map((i: { pointer: string }) => i.pointer);
    expect(pointers).toEqual([
      "/memoryStores/..~1up",
      "/memoryStores/ok/plugin",
      "/memoryStores/ok/timeout_ms",
      "/memoryStores/ok/max_memory_mb",
      "/memoryStores/ok/grants/0",
    ]);
    expect(err.data.issues[0].message).toMatch(/^instance name must not/);
  });

  it("says what a section entry must be when it is neither an alias nor an instance", async () => {
    const err = await caught(() => load({ memoryStores: { a: 5 } }));
    expect(err.data.issues).toEqual([
      { pointer: "/memoryStores/a", message: "expected a string (an alias) or an object (an instance)" },
    ]);
  });

  it("rejects a grant naming an instance that does not exist", async () => {
    const err = await caught(() =>
      load({
        memoryStores: { m: { plugin: "x" }, alias: "m" },
        mcpConnectors: { p: { plugin: "y", grants: ["memoryStores/m", "memoryStores/alias", "localModels/gone"] } },
      }),
    );
    expect(err.code).toBe("PB_ERR_CONFIG_INVALID");
    expect(err.data.issues).toEqual([
      {
        pointer: "/mcpConnectors/p/grants/2",
        message: 'grants "localModels/gone", which is not an instance in connectors.json',
      },
    ]);
  });
});

describe("comments", () => {
  it("allows _ keys anywhere, and leaves them inside config and identity to the plugin", async () => {
    const cfg = await load({
      _comment: "top",
      defaults: { _why: "slow network", timeout_ms: 1000 },
      memoryStores: {
        _note: { anything: true },
        primary: { _c: 1, plugin: "sqlite-memory", config: { _keep: "mine", path: "x" } },
      },
      mcpConnectors: { p: { plugin: "mcp-remote", identity: { _keep: true } } },
    });
    expect(cfg.instances.map((i) => i.id)).toEqual(["memoryStores/primary", "mcpConnectors/p"]);
    expect(cfg.instances[0].config).toEqual({ _keep: "mine", path: "x" });
    expect(cfg.instances[1].identity).toEqual({ _keep: true });
    expect(cfg.defaults.timeoutMs).toBe(1000);
  });

  it("does not resolve ${VAR} inside comments, which are discarded", async () => {
    await expect(load({ _comment: "set ${GH_TOKEN} first", memoryStores: {} })).resolves.toBeDefined();
  });
});

describe("forbidden keys", () => {
  it("rejects __proto__, constructor and prototype anywhere, with pointers", async () => {
    const p = tempProject();
    p.write(
      "connectors.json",
      '{"memoryStores": {"m": {"plugin": "x", "config": {"deep": [{"__proto__": {"polluted": true}}], "constructor": 1}}}, "_c": {"prototype": 2}}',
    );
    const err = await caught(() => loadConfig({ cwd: p.root, env: {} }));
    expect(err.code).toBe("PB_ERR_CONFIG_INVALID");
    expect(err.data.issues.map((i: { pointer: string }) => i.pointer)).toEqual([
      "/memoryStores/m/config/deep/0/__proto__",
      "/memoryStores/m/config/constructor",
      "/_c/prototype",
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("resolution", () => {
  it("applies defaults, instance overrides, and mcp-only fields", async () => {
    const cfg = await load({
      defaults: { health_timeout_ms: 100 },
      memoryStores: { m: { plugin: "sqlite-memory" } },
      mcpConnectors: {
        p: { plugin: "mcp-remote", timeout_ms: 10, allowed_tools: ["search"], grants: ["memoryStores/m"] },
      },
    });
    expect(cfg.defaults).toEqual({ timeoutMs: 30000, healthTimeoutMs: 100, maxMemoryMb: 512, healthIntervalMs: 30000 });
    expect(cfg.pluginDirs).toEqual([path.resolve("/", "plugins")]);
    const [m, p] = cfg.instances;
    expect(m).toEqual({
      id: "memoryStores/m",
      section: "memoryStores",
      name: "m",
      pointer: "/memoryStores/m",
      plugin: "sqlite-memory",
      required: true,
      timeoutMs: 30000,
      healthTimeoutMs: 100,
      maxMemoryMb: 512,
      healthIntervalMs: 30000,
      isolation: "thread",
      worker: null,
      allowedTools: null,
      identity: null,
      grants: [],
      config: {},
    });
    expect(p).toMatchObject({ timeoutMs: 10, allowedTools: ["search"], grants: ["memoryStores/m"] });
  });

  it("keeps file order within a section and SECTIONS order across sections", async () => {
    const cfg = await load({
      adapters: { z: { plugin: "a" } },
      memoryStores: { b: { plugin: "m" }, a: { plugin: "m" } },
    });
    expect(cfg.instances.map((i) => i.id)).toEqual(["memoryStores/b", "memoryStores/a", "adapters/z"]);
  });

  it("resolves relative plugin folders against the config file's folder, not cwd", async () => {
    const p = tempProject();
    p.write("conf/connectors.json", { plugins: ["./plugins", "../vendor/plugins", "/abs/plugins", "./plugins"] });
    const cfg = await loadConfig({ config: "conf/connectors.json", cwd: p.root, env: {} });
    expect(cfg.pluginDirs).toEqual([
      path.join(p.root, "conf/plugins"),
      path.join(p.root, "vendor/plugins"),
      path.resolve("/abs/plugins"),
    ]);
  });

  it("freezes the result deeply", async () => {
    const cfg = await load({ memoryStores: { m: { plugin: "x", config: { nested: { list: [1] } } } } });
    expect(Object.isFrozen(cfg)).toBe(true);
    expect(Object.isFrozen(cfg.instances[0].config.nested)).toBe(true);
    expect(Object.isFrozen((cfg.instances[0].config.nested as { list: number[] }).list)).toBe(true);
    expect(() => (cfg.pluginDirs as string[]).push("x")).toThrow();
  });
});

describe("every stage reports in one error", () => {
  it("lists forbidden keys, missing variables and unknown keys together, under the first stage's code", async () => {
    const err = await loadConfig({
      config: {
        constructor: 1,
        mcpConnectors: { x: { plugin: "p", allowed_tool: ["a"], config: { url: "${NOPE_VAR}" } } },
      },
      env: {},
    }).catch((e: { code: string; message: string; data: { issues: { pointer: string; code: string }[] } }) => e);
    expect(err).toMatchObject({ code: "PB_ERR_CONFIG_INVALID" });
    const pointers = (err as { data: { issues: { pointer: string; code: string }[] } }).data.issues.map(
      (i) => `${i.code} ${i.pointer}`,
    );
    expect(pointers).toEqual([
      "PB_ERR_CONFIG_INVALID /constructor",
      "PB_ERR_CONFIG_ENV_MISSING /mcpConnectors/x/config/url",
      "PB_ERR_CONFIG_INVALID /mcpConnectors/x/allowed_tool",
    ]);
  });
});
