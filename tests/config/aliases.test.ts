import { describe, expect, it } from "vitest";
import { resolveAliases } from "../../src/config/aliases.js";
import { loadConfig } from "../../src/config/load.js";
import { caught } from "./fixtures.js";

describe("aliases", () => {
  it("resolves chains to the final instance", async () => {
    const cfg = await loadConfig({
      config: {
        localModels: { gemma2: { plugin: "ollama" }, default: "fast", fast: "gemma2" },
        memoryStores: { m: { plugin: "x" }, main: "m" },
      },
      cwd: "/",
      env: {},
    });
    expect(cfg.aliases).toEqual({
      "memoryStores/main": "memoryStores/m",
      "localModels/default": "localModels/gemma2",
      "localModels/fast": "localModels/gemma2",
    });
    expect(cfg.instances.map((i) => i.id)).toEqual(["memoryStores/m", "localModels/gemma2"]);
  });

  it("reports every cycle once, with its chain, and every dangling alias", async () => {
    const err = await caught(() =>
      loadConfig({
        config: {
          localModels: { a: "b", b: "a", self: "self", into: "a", d: "gone", via: "d" },
          skillStores: { s: "localModels" },
        },
        cwd: "/",
        env: {},
      }),
    );
    expect(err.code).toBe("PB_ERR_CONFIG_ALIAS");
    expect(err.data.issues).toEqual([
      { pointer: "/localModels/a", message: "aliases form a cycle: a → b → a" },
      { pointer: "/localModels/self", message: "aliases form a cycle: self → self" },
      { pointer: "/localModels/d", message: 'alias points to "gone", which is not an instance in localModels' },
      { pointer: "/skillStores/s", message: 'alias points to "localModels", which is not an instance in skillStores' },
    ]);
    expect(err.message).toContain("/localModels/a: aliases form a cycle: a → b → a");
  });

  it("never resolves across sections", () => {
    const r = resolveAliases({ localModels: { x: "m" }, memoryStores: { m: { plugin: "p" } } });
    expect(r.aliases).toEqual({});
    expect(r.issues).toHaveLength(1);
  });
});
