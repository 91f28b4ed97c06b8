/**
 * What tinypool loads in each plugin thread (dist/runtime/entry.js, workerEntryPath): the thread's
 * program, entry.ts, built as one CommonJS file (entry.cjs) and run from a V8 code cache, as
 * runtime-twin.ts runs zod and for the same reason: loading the ~85 KB program took ~2.9 ms
 * of each thread's start as an ES module, ~1 ms from the cache (measured, its built-ins already
 * loaded). On the host's own thread ("isolation": "host", spawn/host-runtime.ts) it is a plain
 * require().
 */
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";
import type * as Program from "./entry.js";
import { runWithCodeCache, takeUnstored } from "./runtime-twin.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const file = path.join(here, "entry.cjs");
/**
 * The jiti cache's first place (paths.ts jitiCacheDir), beside the package: this runs before the
 * first task names the host's cache. Where it cannot be written, the program compiles as it did.
 */
const cacheDir = path.join(here, "..", "..", "node_modules", ".cache", "patchbay-jiti", "v8");

function load(): typeof Program {
  if (isMainThread) return createRequire(import.meta.url)(file) as typeof Program;
  const program = runWithCodeCache(file, cacheDir) as unknown as typeof Program;
  program.lendImport((url) => import(url));
  // Written with the plugin's twin once the plugin is ready: by then the entry holds the serve loop too.
  program.adoptUnstored(takeUnstored());
  return program;
}

const program = load();
export default program.default;
export const serveOnHostThread = program.serveOnHostThread;
export type { HostThreadChannel } from "./entry.js";
