/**
 * Plugins run from a compiled cache (src/worker/compiled-cache.ts): jiti transpiles a file only
 * when its entry is missing, stale (the .ts was edited) or corrupt; a fresh cache runs without
 * it. Real files in a temp folder; the transform is jiti's, counted.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createJiti } from "jiti";
import { afterAll, describe, expect, it } from "vitest";
import { importCompiled } from "../../src/worker/compiled-cache.js";
import { authoringAliases } from "../../src/paths.js";
import { cleanupTempDirs, ROOT, tempDir } from "../helpers.js";
import { createHost } from "../../src/index.js";

afterAll(cleanupTempDirs);

function plugin(version: string): { dir: string; entry: string; cache: string } {
  const root = tempDir("pb-compiled-");
  const dir = path.join(root, "p");
  mkdirSync(path.join(dir, "src"), { recursive: true });
  writeFileSync(path.join(dir, "src", "version.ts"), `export const VERSION: string = "${version}";\n`);
  writeFileSync(
    path.join(dir, "src", "index.ts"),
    [
      `import { definePlugin, z } from "patchbay/plugin";`,
      `import path from "node:path";`,
      `import { VERSION } from "./version.js";`,
      `enum Mode { A = "a" }`,
      `export default definePlugin({ kind: "mcp", config: z.object({}), create: () => ({`,
      `  health_check: async () => true, list_tools: async () => [{ name: "v" }],`,
      `  call: async () => ({ version: VERSION, mode: Mode.A, base: path.basename(__filename) }) }) });`,
    ].join("\n"),
  );
  writeFileSync(
    path.join(dir, "plugin.json"),
    JSON.stringify({ name: "cc-probe", version: "1.0.0", kind: "mcp", entry: "src/index.ts", patchbay: "^1" }),
  );
  return { dir, entry: path.join(dir, "src", "index.ts"), cache: path.join(root, "cache") };
}

function loader(p: ReturnType<typeof plugin>, nativeModules?: string[]) {
  const jiti = createJiti(import.meta.url);
  const transformed: string[] = [];
  const load = () =>
    importCompiled({
      entryPath: p.entry,
      pluginDir: p.dir,
      pluginName: "cc-probe",
      cacheRoot: p.cache,
      aliases: authoringAliases(),
      nativeModules,
      transform: (source, filename) => {
        transformed.push(path.basename(filename));
        return jiti.transform({ source, filename, ts: true, async: false, interopDefault: true, retainLines: true });
      },
    });
  return { load, transformed };
}

async function versionOf(exports: Record<string, unknown> | null): Promise<unknown> {
  const def = exports?.default as { create(c: unknown, ctx: unknown): { call(): Promise<unknown> } };
  return await def.create({}, {}).call();
}

describe("the compiled plugin cache", () => {
  it("transpiles once, then runs from the cache without jiti", async () => {
    const p = plugin("one");
    const first = loader(p);
    expect(await versionOf(await first.load())).toEqual({ version: "one", mode: "a", base: "index.ts" });
    expect(first.transformed.sort()).toEqual(["index.ts", "version.ts"]);
    const second = loader(p);
    expect(await versionOf(await second.load())).toMatchObject({ version: "one" });
    expect(second.transformed).toEqual([]);
  });

  it("picks up an edited .ts file, transpiling only that file", async () => {
    const p = plugin("one");
    await loader(p).load();
    writeFileSync(path.join(p.dir, "src", "version.ts"), `export const VERSION: string = "two";\n`);
    const again = loader(p);
    expect(await versionOf(await again.load())).toMatchObject({ version: "two" });
    expect(again.transformed).toEqual(["version.ts"]);
  });

  it("never evaluates a corrupt entry: it transpiles the file again", async () => {
    const p = plugin("one");
    await loader(p).load();
    const folder = path.join(p.cache, "compiled", readdirSync(path.join(p.cache, "compiled"))[0]!);
    const entry = readdirSync(folder).find((f) => f.startsWith("version.ts."))!;
    // Still valid JavaScript, but not what was stored: the integrity line catches it.
    appendFileSync(path.join(folder, entry), `\nexports.VERSION = "tampered";\n`);
    const again = loader(p);
    expect(await versionOf(await again.load())).toMatchObject({ version: "one" });
    expect(again.transformed).toEqual(["version.ts"]);
    expect(readFileSync(path.join(folder, entry), "utf8")).not.toContain("tampered");
  });

  it("links import()s that babel prints with a line break inside the parentheses", async () => {
    const p = plugin("one");
    writeFileSync(path.join(p.dir, "src", "half.ts"), `export const HALF: string = "o";\n`);
    writeFileSync(path.join(p.dir, "src", "other-half.ts"), `export const OTHER: string = "ne";\n`);
    const source = [
      `import { definePlugin, z } from "patchbay/plugin";`,
      `export default definePlugin({ kind: "mcp", config: z.object({}), create: () => ({`,
      `  health_check: async () => true, list_tools: async () => [{ name: "v" }],`,
      `  call: async () => {`,
      `    const [{ HALF }, other] = await Promise.all([`,
      `      import("./half.js"),`,
      `      Math.random() < 2 ? import("./other-half.js") : null,`,
      `    ]);`,
      `    return { version: HALF + other!.OTHER };`,
      `  } }) });`,
    ].join("\n");
    writeFileSync(p.entry, source);
    const printed = createJiti(import.meta.url).transform({ source, filename: p.entry, ts: true, retainLines: true });
    expect(printed, "the shape this guards: a line break after jitiImport(").toMatch(/jitiImport\(\s*\n/);
    expect(await versionOf(await loader(p).load())).toEqual({ version: "one" });
    expect(await versionOf(await loader(p).load())).toEqual({ version: "one" });
  });

  it("requires a built-in only when a file importing it runs, not when the plugin is linked", async () => {
    // A built-in this test process has no other reason to load (vitest does not).
    const { moduleLoadList } = process as unknown as { moduleLoadList: string[] };
    const loaded = () => moduleLoadList.includes("NativeModule trace_events");
    expect(loaded(), "the premise: nothing loaded it yet").toBe(false);
    const p = plugin("one");
    writeFileSync(
      path.join(p.dir, "src", "tracing.ts"),
      `import { getEnabledCategories } from "node:trace_events";\nexport const VERSION = typeof getEnabledCategories;\n`,
    );
    const source = [
      `import { definePlugin, z } from "patchbay/plugin";`,
      `export default definePlugin({ kind: "mcp", config: z.object({}), create: () => ({`,
      `  health_check: async () => true, list_tools: async () => [{ name: "v" }],`,
      `  call: async () => ({ version: (await import("./tracing.js")).VERSION }) }) });`,
    ].join("\n");
    writeFileSync(p.entry, source);
    const exports = await loader(p).load();
    expect(exports).not.toBeNull();
    expect(loaded()).toBe(false);
    expect(await versionOf(exports)).toEqual({ version: "function" });
    expect(loaded()).toBe(true);
  });

  it("leaves a plugin that imports a package of its own to jiti", async () => {
    const p = plugin("one");
    writeFileSync(
      path.join(p.dir, "src", "version.ts"),
      `import semver from "semver";\nexport const VERSION: string = String(semver.major("3.0.0"));\n`,
    );
    expect(await loader(p).load()).toBeNull();
  });

  it("runs a plugin that imports a native package (jiti's nativeModules) from the cache, the package required from the plugin's folder", async () => {
    const p = plugin("one");
    // The package is found the way Node finds it from the importing file: through a node_modules above the plugin.
    symlinkSync(path.join(ROOT, "node_modules"), path.join(path.dirname(p.dir), "node_modules"));
    writeFileSync(
      path.join(p.dir, "src", "version.ts"),
      [
        `import Database from "better-sqlite3";`,
        `const db = new Database(":memory:");`,
        `export const VERSION: string = String((db.prepare("select 40 + 2 as x").get() as { x: number }).x);`,
      ].join("\n"),
    );
    const first = loader(p, ["better-sqlite3"]);
    expect(await versionOf(await first.load())).toMatchObject({ version: "42" });
    const second = loader(p, ["better-sqlite3"]);
    expect(await versionOf(await second.load())).toMatchObject({ version: "42" });
    expect(second.transformed).toEqual([]);
    // Not in the list: still jiti's.
    expect(await loader(p).load()).toBeNull();
  });

  it("boots a real host from it, on a miss and on a hit", async () => {
    const p = plugin("host");
    const config = { plugins: [path.dirname(p.dir)], mcpConnectors: { a: { plugin: "cc-probe" } } };
    for (let i = 0; i < 2; i++) {
      const host = await createHost({ config, dir: p.dir, logLevel: "silent" });
      try {
        await expect(host.mcp("a").call("v", {})).resolves.toMatchObject({ version: "host", mode: "a" });
      } finally {
        await host.close();
      }
    }
  });
});
