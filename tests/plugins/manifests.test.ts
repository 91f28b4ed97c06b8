/**
 * Every bundled plugin folder is complete and consistent: plugin.json is valid, its kind matches
 * definePlugin's, the methods an instance has are exactly the kind's required methods plus the
 * declared capabilities, and the README documents every config option and how to wire it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { METHODS, type Kind } from "../../src/contract/kinds.js";
import { ManifestSchema } from "../../src/contract/manifest.js";
import { readTestFixture } from "../../src/scaffold/fixture.js";
import { makeCtx } from "./_ctx.js";

const PLUGINS = fileURLToPath(new URL("../../plugins/", import.meta.url));

/** A config each bundled plugin's schema accepts; create() must not need its substrate to be up. */
const minimalConfig = (dir: string): Record<string, Record<string, unknown>> => ({
  "sqlite-memory": { path: ":memory:" },
  "postgres-memory": { connection_string: "postgres://patchbay@127.0.0.1:9/patchbay" },
  "fs-skill-store": { dir: join(dir, "skills") },
  "sqlite-skill-store": { path: join(dir, "skills.db") },
  "file-drop-agent": { dir: join(dir, "outbox") },
  "noop-agent": {},
  "http-webhook-agent": { agents: { perry: { url: "http://127.0.0.1:9/agents/perry" } } },
  "adapter-inbox": { path: join(dir, "inbox.db"), agents: ["claude-code"] },
  ollama: { model: "gemma2:9b" },
  "mcp-remote": { url: "http://127.0.0.1:9/mcp" },
  "claude-code": {},
  codex: {},
  "gemini-cli": {},
  "example-adapter": {},
});

/**
 * plugins/bundled.json names the plugins that ship with Patchbay. An adopter's plugin dropped into
 * plugins/ beside them is not checked here (its own tests under plugins/<name>/tests run instead),
 * so following the README never breaks `npm test`.
 */
const BUNDLED = JSON.parse(readFileSync(join(PLUGINS, "bundled.json"), "utf8")) as {
  plugins: Record<string, { test_config: boolean; why?: string }>;
};

describe("bundled plugins", () => {
  it("are each a folder under plugins/ and each checked below", () => {
    const names = Object.keys(BUNDLED.plugins);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names)
      expect(existsSync(join(PLUGINS, name, "plugin.json")), `plugins/${name}/plugin.json`).toBe(true);
    expect(Object.keys(minimalConfig("")).sort()).toEqual(names.sort());
  });

  it("ship a test.config.json that `patchbay plugin test` accepts wherever their substrate is local", () => {
    for (const [name, { test_config, why }] of Object.entries(BUNDLED.plugins)) {
      const manifest = ManifestSchema.parse(JSON.parse(readFileSync(join(PLUGINS, name, "plugin.json"), "utf8")));
      const fixture = readTestFixture(join(PLUGINS, name), manifest.kind);
      if (test_config) expect(fixture?.config, `${name}/test.config.json "config"`).toBeTypeOf("object");
      else expect(why, `${name}: bundled.json says why it has no test config`).toMatch(/\w/);
    }
  });
});

interface ShapeLike {
  _zod: { def: { shape?: Record<string, unknown> } };
}

describe.each(Object.keys(minimalConfig("")))("bundled plugin %s", (name) => {
  const folder = join(PLUGINS, name);
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(join(folder, "plugin.json"), "utf8")));

  it("has a valid plugin.json, a README and an entry", () => {
    expect(manifest.name).toBe(name);
    expect(manifest.patchbay).toBe("^1");
    expect(existsSync(join(folder, manifest.entry))).toBe(true);
    expect(existsSync(join(folder, "README.md"))).toBe(true);
  });

  it("implements exactly the kind's methods plus its declared capabilities", async () => {
    const mod = (await import(join(folder, manifest.entry))) as {
      default: { kind: Kind; config: { parse(v: unknown): unknown }; create: (c: unknown, ctx: unknown) => unknown };
    };
    const def = mod.default;
    expect(def.kind).toBe(manifest.kind);
    const table = METHODS[manifest.kind];
    for (const cap of manifest.capabilities) expect(table.optional).toContain(cap);

    const dir = mkdtempSync(join(tmpdir(), "pb-manifest-"));
    try {
      const instance = (await def.create(def.config.parse(minimalConfig(dir)[name]), makeCtx().ctx)) as Record<
        string,
        unknown
      >;
      for (const method of table.required) expect(typeof instance[method], method).toBe("function");
      for (const method of table.optional) {
        expect(typeof instance[method] === "function", `${method} implemented iff declared`).toBe(
          manifest.capabilities.includes(method),
        );
      }
      await (instance.close as (() => Promise<void>) | undefined)?.();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("documents every config option in its README", async () => {
    const mod = (await import(join(folder, manifest.entry))) as { default: { config: ShapeLike } };
    const shape = mod.default.config._zod.def.shape ?? {};
    expect(Object.keys(shape).length, "the config schema is an object with keys").toBeGreaterThan(0);
    const readme = readFileSync(join(folder, "README.md"), "utf8");
    for (const key of Object.keys(shape)) expect(readme, `README mentions ${key}`).toContain(`\`${key}\``);
  });

  it("shows in its README the connectors.json entry that wires it", () => {
    expect(readFileSync(join(folder, "README.md"), "utf8")).toContain(`"plugin": "${name}"`);
  });
});
