/**
 * The MCP SDK's bundled copy (dist/runtime/mcp-sdk/, scripts/bundle-runtime.mjs) and how plugins
 * reach it: only shipped plugins get it, for every SDK module they import (two copies of the
 * SDK's classes in one plugin would break its `instanceof McpError`); it shares zod with
 * "patchbay/plugin"; it leaves the Client's ajv out (mcp-remote gives it its own validator);
 * and an alias reached only through a dynamic import() is loaded when that
 * import runs, so mcp-remote's server still starts before the SDK loads. Real files, real
 * workers, jiti's own transform.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createJiti } from "jiti";
import { afterAll, describe, expect, it } from "vitest";
import { authoringAliases, BUNDLED_SDK_MODULES, bundledSdkAliases } from "../../src/paths.js";
import { importCompiled } from "../../src/worker/compiled-cache.js";
import { createHost } from "../../src/index.js";
import { cleanupTempDirs, ROOT, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

const SDK = "@modelcontextprotocol/sdk/";

/** Every SDK module a file imports for its values (`import type` is erased, so it loads nothing). */
function sdkValueImports(code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/\bimport\s+(type\s+)?([^;]*?)\s*from\s*"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/g)) {
    const spec = m[3] ?? m[4];
    if (spec.startsWith(SDK) && !m[1]) out.push(spec.slice(SDK.length));
  }
  return out;
}

function shippedSources(): string[] {
  const shipped = JSON.parse(readFileSync(path.join(ROOT, "plugins", "bundled.json"), "utf8")) as {
    plugins: Record<string, unknown>;
  };
  const files: string[] = [];
  for (const name of Object.keys(shipped.plugins)) {
    const src = path.join(ROOT, "plugins", name, "src");
    for (const f of readdirSync(src, { recursive: true, encoding: "utf8" }))
      if (f.endsWith(".ts")) files.push(path.join(src, f));
  }
  return files;
}

/** A plugin folder of `files` (path → source) and where its compiled cache goes. */
function pluginOf(files: Record<string, string>): { dir: string; entry: string; cache: string } {
  const root = tempDir("pb-sdk-alias-");
  const dir = path.join(root, "p");
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), source);
  }
  return { dir, entry: path.join(dir, "src", "index.ts"), cache: path.join(root, "cache") };
}

function load(p: ReturnType<typeof pluginOf>, aliases: Record<string, string>) {
  const jiti = createJiti(import.meta.url);
  return importCompiled({
    entryPath: p.entry,
    pluginDir: p.dir,
    pluginName: "sdk-probe",
    cacheRoot: p.cache,
    aliases,
    nativeModules: ["@modelcontextprotocol/sdk"],
    transform: (source, filename) =>
      jiti.transform({ source, filename, ts: true, async: false, interopDefault: true, retainLines: true }),
  });
}

describe("the MCP SDK's bundled copy", () => {
  it("covers every SDK module a shipped plugin imports", () => {
    const imported = new Set(shippedSources().flatMap((f) => sdkValueImports(readFileSync(f, "utf8"))));
    expect(imported.size).toBeGreaterThan(0); // mcp-remote imports the SDK: a scan that finds nothing is broken
    expect([...imported].filter((m) => !(BUNDLED_SDK_MODULES as readonly string[]).includes(m))).toEqual([]);
  });

  it("shares zod with patchbay/plugin, and its modules share one copy of the SDK's classes", async () => {
    const aliases = bundledSdkAliases();
    const { z } = await import(pathToFileURL(authoringAliases()["patchbay/plugin"]).href);
    const types = await import(pathToFileURL(aliases[`${SDK}types.js`]).href);
    expect(types.CallToolResultSchema).toBeInstanceOf(z.ZodType);
    const p = pluginOf({
      "src/index.ts": [
        `import { McpError } from "@modelcontextprotocol/sdk/types.js";`,
        `import { Client } from "@modelcontextprotocol/sdk/client/index.js";`,
        `export { McpError, Client };`,
      ].join("\n"),
    });
    const loaded = await load(p, { ...authoringAliases(), ...aliases });
    expect(loaded?.McpError).toBe(types.McpError);
    // Not the node_modules copy a plugin of the operator's own gets.
    expect(loaded?.McpError).not.toBe(createRequire(import.meta.url)(`${SDK}types.js`).McpError);
  });

  it("carries no ajv: its Client must be given a validator, and mcp-remote's lets it list tools with outputSchemas", async () => {
    const client = readFileSync(bundledSdkAliases()[`${SDK}client/index.js`], "utf8");
    expect(client).not.toMatch(/^\/\/ node_modules\/(ajv|ajv-formats)\//m);
    const { Client } = await import(pathToFileURL(bundledSdkAliases()[`${SDK}client/index.js`]).href);
    expect(() => new Client({ name: "t", version: "1" })).toThrow(
      /carries no ajv: give the Client a jsonSchemaValidator/,
    );
    const { hostChecksOutput } = await import("../../plugins/mcp-remote/src/output-validation.js");
    const { StdioClientTransport } = await import(`${SDK}client/stdio.js`);
    const c = new Client({ name: "t", version: "1" }, { jsonSchemaValidator: hostChecksOutput });
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, "servers", "demo-mcp.mjs")],
        env: { PATH: process.env.PATH ?? "" },
        stderr: "ignore",
      }),
    );
    try {
      // The demo server's `add` has an outputSchema: tools/list asks the validator for it, and must not fail.
      const { tools } = await c.listTools();
      expect(tools.find((t: { name: string }) => t.name === "add")?.outputSchema).toBeDefined();
      // Used at all, it says so rather than answering for a schema it never checked.
      expect(() => hostChecksOutput.getValidator({ type: "object" })({})).toThrow(/validates no JSON Schema/);
    } finally {
      await c.close();
    }
  });

  it("imports an alias reached only through a dynamic import() when that import runs, not before the entry", async () => {
    const root = tempDir("pb-lazy-alias-");
    const probe = path.join(root, "probe.mjs");
    writeFileSync(
      probe,
      `globalThis.__pbProbeLoads = (globalThis.__pbProbeLoads ?? 0) + 1;\nexport const value = 42;\n`,
    );
    const p = pluginOf({
      "src/index.ts": [
        `import { definePlugin } from "patchbay/plugin";`,
        `export const loadsAtEntry = (globalThis as { __pbProbeLoads?: number }).__pbProbeLoads ?? 0;`,
        `export const kind = typeof definePlugin;`,
        `export async function later(): Promise<number> { return (await import("./later.js")).value; }`,
      ].join("\n"),
      "src/later.ts": `import { value } from "lazy-probe";\nexport { value };\n`,
    });
    const loaded = (await load(p, { ...authoringAliases(), "lazy-probe": probe })) as {
      loadsAtEntry: number;
      kind: string;
      later(): Promise<number>;
    };
    expect(loaded.kind).toBe("function"); // a static alias is there when the entry runs
    expect(loaded.loadsAtEntry).toBe(0);
    expect(await loaded.later()).toBe(42);
    expect((globalThis as { __pbProbeLoads?: number }).__pbProbeLoads).toBe(1);
  });

  it("is not given to a plugin of the operator's own: it gets the SDK from node_modules", async () => {
    const root = tempDir("pb-own-sdk-");
    const dir = path.join(root, "own-sdk");
    mkdirSync(path.join(dir, "src"), { recursive: true });
    // The SDK is found the way Node finds it from the plugin's files: in a node_modules above them.
    symlinkSync(path.join(ROOT, "node_modules"), path.join(root, "node_modules"));
    writeFileSync(
      path.join(dir, "plugin.json"),
      JSON.stringify({ name: "own-sdk", version: "1.0.0", kind: "mcp", entry: "src/index.ts", patchbay: "^1" }),
    );
    // Where the SDK's code runs from shows in the stack of an error it throws (a client that never connected).
    writeFileSync(
      path.join(dir, "src", "index.ts"),
      [
        `import { definePlugin, z } from "patchbay/plugin";`,
        `import { Client } from "@modelcontextprotocol/sdk/client/index.js";`,
        `export default definePlugin({ kind: "mcp", config: z.object({}), create: () => ({`,
        `  health_check: async () => true, list_tools: async () => [{ name: "where" }],`,
        `  call: async () => ({ stack: await new Client({ name: "p", version: "1" }).ping().then(() => "", (e) => String(e.stack)) }) }) });`,
      ].join("\n"),
    );
    const host = await createHost({
      config: { plugins: [root], mcpConnectors: { own: { plugin: "own-sdk" } } },
      dir: root,
      logLevel: "silent",
    });
    try {
      const { stack } = (await host.mcp("own").call("where", {})) as { stack: string };
      expect(stack).toContain(path.join("node_modules", "@modelcontextprotocol", "sdk"));
      expect(stack).not.toContain(path.join("dist", "runtime", "mcp-sdk"));
    } finally {
      await host.close();
    }
  });
});
