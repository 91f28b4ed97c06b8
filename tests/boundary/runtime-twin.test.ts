/**
 * A plugin's thread runs "patchbay/plugin" from its CommonJS twin (src/worker/runtime-twin.ts),
 * compiled from a V8 code cache keyed by the file's whole text: an edited file (even one of the
 * same length, which V8's own check would let through) and a broken entry are compiled afresh,
 * never run from the old entry. And the twin is used only where it is the plugin's only alias.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Worker } from "node:worker_threads";
import { createHost } from "../../src/index.js";
import { jitiCacheDir } from "../../src/paths.js";
import { cleanupTempDirs, ROOT, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

/**
 * runWithCodeCache as a worker's start runs it: in a fresh thread (built, as workers run it), where
 * V8's in-memory cache of this isolate's compiled scripts cannot answer before the entry is read.
 */
async function runWithCodeCache(file: string, cache: string): Promise<unknown> {
  const module = path.join(ROOT, "dist", "worker", "runtime-twin.js");
  const code = [
    `const { parentPort, workerData: d } = require("node:worker_threads");`,
    `import(d.module).then((m) => {`,
    `  const exports = { ...m.runWithCodeCache(d.file, d.cache) };`,
    `  m.storeCodeCaches();`,
    `  parentPort.postMessage(exports);`,
    `});`,
  ].join("\n");
  const worker = new Worker(code, { eval: true, workerData: { module, file, cache } });
  try {
    return await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
  } finally {
    await worker.terminate();
  }
}

function twin(body: string): { file: string; cache: string } {
  const root = tempDir("pb-twin-");
  const file = path.join(root, "twin.cjs");
  writeFileSync(file, body);
  return { file, cache: path.join(root, "v8") };
}

describe("the runtime twin's code cache", () => {
  it("runs a CommonJS file as Node would, and stores one entry for it", async () => {
    const t = twin(`exports.value = "one"; exports.base = require("node:path").basename(__filename);\n`);
    expect(await runWithCodeCache(t.file, t.cache)).toEqual({ value: "one", base: "twin.cjs" });
    expect(await runWithCodeCache(t.file, t.cache)).toEqual({ value: "one", base: "twin.cjs" });
    expect(readdirSync(t.cache)).toHaveLength(1);
  });

  it("never runs an edited file from the old entry, even at the same length", async () => {
    const t = twin(`exports.value = "one";\n`);
    await runWithCodeCache(t.file, t.cache);
    writeFileSync(t.file, `exports.value = "two";\n`);
    expect(await runWithCodeCache(t.file, t.cache)).toEqual({ value: "two" });
    expect(readdirSync(t.cache)).toHaveLength(2);
  });

  it("compiles afresh over a broken entry, and rewrites it", async () => {
    const t = twin(`exports.value = function named() { return "one"; }();\n`);
    await runWithCodeCache(t.file, t.cache);
    const entry = path.join(t.cache, readdirSync(t.cache)[0]!);
    const whole = readFileSync(entry).length;
    truncateSync(entry, 16);
    expect(await runWithCodeCache(t.file, t.cache)).toEqual({ value: "one" });
    expect(readFileSync(entry).length).toBe(whole);
  });

  it("never runs an altered entry: V8 checks no entry's bytes, so the runtime does", async () => {
    const t = twin(`exports.value = function named() { return "one"; }();\n`);
    await runWithCodeCache(t.file, t.cache);
    const entry = path.join(t.cache, readdirSync(t.cache)[0]!);
    const bytes = readFileSync(entry);
    bytes[bytes.length - 8] ^= 0xff;
    writeFileSync(entry, bytes);
    expect(await runWithCodeCache(t.file, t.cache)).toEqual({ value: "one" });
    bytes[bytes.length - 8] ^= 0xff;
    expect(readFileSync(entry).equals(bytes)).toBe(true);
  });

  it("survives a cache folder it cannot write", async () => {
    const t = twin(`exports.value = 1;\n`);
    writeFileSync(path.join(path.dirname(t.file), "blocker"), "");
    expect(await runWithCodeCache(t.file, path.join(path.dirname(t.file), "blocker", "v8"))).toEqual({ value: 1 });
  });
});

/** A plugin whose `where` tool names the file its zod was loaded from; `adapter`: it imports patchbay/adapter too. */
function probe(adapter: boolean): string {
  const root = tempDir("pb-twin-plugin-");
  const dir = path.join(root, "twin-probe");
  mkdirSync(path.join(dir, "src"), { recursive: true });
  writeFileSync(
    path.join(dir, "src", "index.ts"),
    [
      `import { definePlugin, z } from "patchbay/plugin";`,
      adapter ? `import * as adapterSdk from "patchbay/adapter";\nvoid adapterSdk;` : "",
      // The frames under a throwing refinement are zod's own: they name the file zod was loaded from.
      `const throwing = z.string().refine(() => { throw new Error("probe"); });`,
      `const where = () => { try { throwing.parse("a"); return ""; } catch (e) { return String((e as Error).stack); } };`,
      // A schema built from the config's value: what the runtime's code runs over it when the entry is made.
      `export default definePlugin({ kind: "mcp", config: z.object({ token: z.string().optional() }), create: (c) => ({`,
      `  pinned: z.literal(c.token ?? "none").safeParse(c.token).success,`,
      `  health_check: async () => true, list_tools: async () => [{ name: "where" }],`,
      `  call: async () => ({ stack: where() }) }) });`,
    ].join("\n"),
  );
  writeFileSync(
    path.join(dir, "plugin.json"),
    JSON.stringify({ name: "twin-probe", version: "1.0.0", kind: "mcp", entry: "src/index.ts", patchbay: "^1" }),
  );
  return root;
}

async function zodFileOf(pluginsDir: string, extra: Record<string, unknown> = {}): Promise<string> {
  const config = { plugins: [pluginsDir], mcpConnectors: { a: { plugin: "twin-probe", ...extra } } };
  const host = await createHost({ config, dir: pluginsDir, logLevel: "silent" });
  try {
    const { stack } = (await host.mcp("a").call("where", {})) as { stack: string };
    return stack.includes("plugin.cjs") ? "twin" : stack.includes(`${path.sep}runtime${path.sep}`) ? "es" : stack;
  } finally {
    await host.close();
  }
}

describe("which plugins run the twin", () => {
  it("writes its entries once a plugin is ready, and none holds the plugin's config", async () => {
    const dir = probe(false);
    const v8 = path.join(jitiCacheDir() as string, "v8");
    for (const f of readdirSync(v8, { withFileTypes: true }).filter((f) => f.name.endsWith(".bin")))
      rmSync(path.join(v8, f.name), { force: true });
    const token = `pb-twin-secret-${process.pid}-${Date.now()}`;
    expect(await zodFileOf(dir, { config: { token } })).toBe("twin");
    const entries = readdirSync(v8).filter((f) => f.endsWith(".bin"));
    expect(entries.some((f) => f.startsWith("plugin.cjs."))).toBe(true);
    expect(entries.some((f) => f.startsWith("entry.cjs."))).toBe(true);
    for (const f of entries) expect(readFileSync(path.join(v8, f)).includes(token), f).toBe(false);
  });

  it("a thread whose plugin imports only patchbay/plugin, alone or in a group", async () => {
    const dir = probe(false);
    expect(await zodFileOf(dir)).toBe("twin");
    expect(await zodFileOf(dir, { worker: "g" })).toBe("twin");
  });

  it("not a plugin that imports another module of the bundle: it shares the bundle's one zod", async () => {
    expect(await zodFileOf(probe(true))).toBe("es");
  });

  it("not a process-isolated child, which may not write the cache", async () => {
    expect(await zodFileOf(probe(false), { isolation: "process" })).toBe("es");
  });
});
