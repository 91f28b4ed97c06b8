/**
 * Workers run the bundled runtime (scripts/bundle-runtime.mjs): the worker programs
 * and the authoring modules plugins import in a worker, zod inlined, so a worker's start loads a
 * few files rather than ~110 modules. These tests hold the bundle to that: what the runtime's
 * files import, that every worker program and authoring alias points into it, and that a plugin
 * loaded there gets a working `z` and `definePlugin`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z as zod } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import { authoringAliases, groupEntryPath, processEntryPath, workerEntryPath } from "../../src/paths.js";
import { createHost } from "../../src/index.js";
import { cleanupTempDirs, ROOT } from "../helpers.js";

afterAll(cleanupTempDirs);

const RUNTIME = path.join(ROOT, "dist", "runtime");

/** Static `import ... from "x"` specifiers of an ES module's text. */
function staticImports(code: string): string[] {
  return [...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm)].map((m) => m[1] ?? m[2]);
}

describe("the bundled worker runtime", () => {
  it("imports only Node built-ins and its own chunks: no zod, jiti or other package is loaded at a worker's start", () => {
    const files = readdirSync(RUNTIME, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"));
    expect(files).toEqual(
      expect.arrayContaining(["entry.js", "group-entry.js", "process-entry.js", "plugin.js", "adapter.js"]),
    );
    expect(files).toContain(path.join("mcp-sdk", "client", "index.js"));
    for (const f of files) {
      for (const spec of staticImports(readFileSync(path.join(RUNTIME, f), "utf8"))) {
        const own = spec.startsWith(".") && path.resolve(RUNTIME, path.dirname(f), spec).startsWith(RUNTIME + path.sep);
        expect(spec.startsWith("node:") || own, `${f} imports ${spec}`).toBe(true);
      }
    }
  });

  it("is what every worker program and the patchbay/plugin and patchbay/adapter aliases point to", () => {
    for (const p of [
      workerEntryPath(),
      groupEntryPath(),
      processEntryPath(),
      authoringAliases()["patchbay/plugin"],
      authoringAliases()["patchbay/adapter"],
    ]) {
      expect(path.dirname(p)).toBe(RUNTIME);
    }
  });

  it("gives a plugin a working z and definePlugin: its config schema rejects a bad value and accepts a good one", async () => {
    const config = (value: unknown) => ({ memoryStores: { m: { plugin: "sqlite-memory", config: { path: value } } } });
    const bad = await createHost({ config: config(42), dir: ROOT, logLevel: "silent", collect: true });
    try {
      expect(bad.report().instances[0].error?.code).toBe("PB_ERR_INSTANCE_CONFIG_INVALID");
    } finally {
      await bad.close();
    }
    const good = await createHost({ config: config(":memory:"), dir: ROOT, logLevel: "silent" });
    try {
      expect(good.report().instances[0].state).toBe("ready");
      expect(await good.call("memoryStores/m", "health_check")).toBe(true);
    } finally {
      await good.close();
    }
  });

  it("gives plugins zod's own z, its locales but English loaded on first use (scripts/lazy-zod-locales.mjs)", async () => {
    const bundled = authoringAliases()["patchbay/plugin"];
    expect(readFileSync(bundled, "utf8")).not.toContain("node_modules/zod/v4/locales/de.js");
    const { z } = (await import(pathToFileURL(bundled).href)) as { z: typeof zod };
    expect(Object.keys(z).sort()).toEqual(Object.keys(zod).sort());
    expect(Object.keys(z.locales)).toEqual(Object.keys(zod.locales));
    expect(Object.keys(z.core.locales)).toEqual(Object.keys(zod.core.locales));
    const message = (of: typeof zod) => of.string().safeParse(1).error?.issues[0].message;
    expect(message(z)).toBe("Invalid input: expected string, received number");
    try {
      z.config(z.locales.de());
      zod.config(zod.locales.de());
      expect(message(z)).toBe(message(zod));
      expect(message(z)).not.toBe("Invalid input: expected string, received number");
    } finally {
      z.config(z.locales.en());
      zod.config(zod.locales.en());
    }
  });

  it("has a CommonJS twin of patchbay/plugin (src/worker/runtime-twin.ts) with the same exports and the same z", async () => {
    const bundled = authoringAliases()["patchbay/plugin"];
    const twin = bundled.replace(/\.js$/, ".cjs");
    const text = readFileSync(twin, "utf8");
    // Run as a script, where an import() would have no loader to go to.
    expect(text).not.toMatch(/\bimport\(/);
    expect(/[^\x00-\x7f]/.test(text)).toBe(false);
    const es = (await import(pathToFileURL(bundled).href)) as Record<string, unknown> & { z: typeof zod };
    const cjs = createRequire(import.meta.url)(twin) as Record<string, unknown> & { z: typeof zod };
    expect(Object.keys(cjs).sort()).toEqual(Object.keys(es).sort());
    expect(Object.keys(cjs.z).sort()).toEqual(Object.keys(zod).sort());
    expect(cjs.z.string().safeParse(1).error?.issues[0].message).toBe(
      es.z.string().safeParse(1).error?.issues[0].message,
    );
  });

  it("keeps zod's namespaces as they were when written as literals of getters (scripts/namespace-getters.mjs)", async () => {
    const bundled = authoringAliases()["patchbay/plugin"];
    const es = ((await import(pathToFileURL(bundled).href)) as { z: typeof zod }).z;
    const cjs = (createRequire(import.meta.url)(bundled.replace(/\.js$/, ".cjs")) as { z: typeof zod }).z;
    for (const z of [es, cjs]) {
      for (const [ours, theirs] of [
        [z, zod],
        [z.core, zod.core],
        [z.iso, zod.iso],
        [z.coerce, zod.coerce],
        [z.core.util, zod.core.util],
        [z.core.regexes, zod.core.regexes],
      ] as [object, object][]) {
        expect(Object.keys(ours)).toEqual(Object.keys(theirs));
        expect(Object.prototype.toString.call(ours)).toBe("[object Module]");
      }
      expect(z.core.$ZodObject).toBeTypeOf("function");
      expect(z.iso.datetime().safeParse("2020-01-01T00:00:00Z").success).toBe(true);
    }
    expect(readFileSync(bundled.replace(/\.js$/, ".cjs"), "utf8")).not.toContain("__exportAll({");
  });

  it("is ASCII only (scripts/ascii-only.mjs), and its escaped strings say what zod's own say", async () => {
    for (const f of readdirSync(RUNTIME, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"))) {
      expect(/[^\x00-\x7f]/.test(readFileSync(path.join(RUNTIME, f), "utf8")), `${f} holds a non-ASCII character`).toBe(
        false,
      );
    }
    // zod's prettifyError writes "✖" and "→": the bundle's copy, escaped, must print the same text.
    const { z } = (await import(pathToFileURL(authoringAliases()["patchbay/plugin"]).href)) as { z: typeof zod };
    const pretty = (of: typeof zod) => of.prettifyError(of.object({ a: of.string() }).safeParse({ a: 1 }).error!);
    expect(pretty(z)).toBe(pretty(zod));
    expect(pretty(z)).toMatch(/✖.*\n.*→ at a/);
  });
});
