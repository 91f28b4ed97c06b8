/**
 * Where Patchbay's own files are: the compiled worker entry, the bundled plugins, the modules
 * "patchbay/plugin" and "patchbay/testing" resolve to for plugin folders without node_modules.
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

let root: string | null = null;

/**
 * The npm package's name. `patchbay` on the registry is an unrelated package, so Patchbay is
 * published as patchbay-host; the command stays `patchbay`, and plugins keep importing
 * "patchbay/plugin" (the worker aliases it, the scaffolded tsconfig maps it for the type checker).
 */
const PACKAGE_NAME = "patchbay-host";

export function packageRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, "utf8")).name === PACKAGE_NAME) return (root = dir);
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("cannot find Patchbay's package.json above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/**
 * What runs inside a worker is the bundled runtime (`dist/runtime/`, written by
 * scripts/bundle-runtime.mjs in `npm run build`): a few files instead of ~110 modules, which is
 * most of a worker's start. Workers always run it, even when the host runs from src under vitest.
 */
function runtimeFile(name: string): string {
  return path.join(packageRoot(), "dist", "runtime", name);
}

/** The thread worker's program (tinypool's serve task). */
export function workerEntryPath(): string {
  return runtimeFile("entry.js");
}

/** The program of a group's shared thread (`"worker": "<group>"`). */
export function groupEntryPath(): string {
  return runtimeFile("group-entry.js");
}

/** The program a process-isolated instance's child runs. */
export function processEntryPath(): string {
  return runtimeFile("process-entry.js");
}

/**
 * What a process-isolated child must be able to read to run at all: Patchbay's compiled code
 * and package.json, and the node_modules folders that hold the packages the worker and the
 * authoring API load (jiti, zod). Installed as a dependency, those are hoisted next to
 * Patchbay rather than inside it, so each is found the way Node's resolution finds it.
 */
export function runtimeReadPaths(): string[] {
  const rootDir = packageRoot();
  const out = new Set([path.join(rootDir, "dist"), path.join(rootDir, "package.json")]);
  for (const dep of ["jiti", "zod"]) {
    for (let dir = rootDir; ; dir = path.dirname(dir)) {
      if (existsSync(path.join(dir, "node_modules", dep, "package.json"))) {
        out.add(path.join(dir, "node_modules"));
        break;
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  return [...out];
}

export function bundledPluginsDir(): string {
  return path.join(packageRoot(), "plugins");
}

export function authoringAliases(): Record<string, string> {
  const dist = path.join(packageRoot(), "dist");
  return {
    // Bundled like the worker programs (zod inlined once, shared by both): what plugins import in a worker.
    "patchbay/plugin": runtimeFile("plugin.js"),
    "patchbay/adapter": runtimeFile("adapter.js"),
    "patchbay/testing": path.join(dist, "testing", "index.js"),
    patchbay: path.join(dist, "index.js"),
  };
}

/**
 * The MCP SDK modules the bundled plugins import (mcp-remote), as subpaths of
 * "@modelcontextprotocol/sdk". scripts/bundle-runtime.mjs bundles each, from the SDK's ES build,
 * into dist/runtime/mcp-sdk/ next to "patchbay/plugin", so they share its copy of zod: loaded from
 * node_modules, the SDK's CommonJS build brings a second zod, ajv and zod-to-json-schema as ~250
 * files, ~250 ms of a worker's start against ~90 ms bundled (measured, Node 20), and that start is
 * the longest stretch of a boot with an MCP connector. Only plugins shipped with Patchbay get them
 * (their imports are known: tests/package/bundled-sdk.test.ts): a plugin that also imported an
 * SDK module outside this list would hold two copies of the SDK's classes.
 */
export const BUNDLED_SDK_MODULES = [
  "types.js",
  "client/index.js",
  "client/auth.js",
  "client/auth-extensions.js",
  "client/streamableHttp.js",
  "shared/stdio.js",
] as const;

/** The SDK modules a shipped plugin imports, mapped to their bundled copies. */
export function bundledSdkAliases(): Record<string, string> {
  return Object.fromEntries(
    BUNDLED_SDK_MODULES.map((m) => [`@modelcontextprotocol/sdk/${m}`, runtimeFile(path.join("mcp-sdk", m))]),
  );
}

/** jiti's transform cache: in node_modules/.cache when writable, else the temp folder. */
export function jitiCacheDir(): string | false {
  for (const dir of [
    path.join(packageRoot(), "node_modules", ".cache", "patchbay-jiti"),
    path.join(os.tmpdir(), "patchbay-jiti"),
  ]) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
      return dir;
    } catch {
      // try the next place
    }
  }
  return false;
}

let version: string | null = null;

/** Patchbay's version (read once: every gateway server names it, and HTTP makes one per request). */
export function packageVersion(): string {
  version ??= String(JSON.parse(readFileSync(path.join(packageRoot(), "package.json"), "utf8")).version);
  return version;
}
