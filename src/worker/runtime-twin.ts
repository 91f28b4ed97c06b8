/**
 * "patchbay/plugin" from its CommonJS twin, dist/runtime/plugin.cjs (the same modules as plugin.js,
 * zod inlined: scripts/bundle-runtime.mjs), in a plugin's thread. Why: nearly every worker imports
 * it at its start, and on Node 20, which has no module.enableCompileCache, compiling its ~390 KB
 * was ~6 ms of the ~36 ms of CPU a worker took to be ready (measured, 20 instances of bench-echo).
 * A script, unlike an ES module, can run from V8's code cache there, and does: a boot of 20 went
 * from 2.1× to 1.7× the floor of `npm run bench`. On Node 22.1+ too, rather than Node's own
 * compile cache (compile-cache.ts): an entry written once a plugin is ready holds more of what a
 * start runs (a boot of 20 on Node 22: 1.48× the floor through Node's cache, 1.41× through this).
 *
 * Only in threads (the thread entries allow it): a process-isolated child may not write the
 * cache. Only when every alias a plugin reaches has a twin and no module of the ES bundle was
 * imported in this thread yet (a warm thread's "patchbay/plugin", a group member's MCP SDK): the
 * plugin and the bundle's other modules then share one zod, as they did.
 *
 * A cache entry is named by a hash of Node's version, the twin's path and its whole text, so a
 * changed file never runs from an older entry; an entry whose bytes are not what was stored, or
 * that V8 rejects (another V8, other flags), is compiled over and rewritten. Entries sit beside
 * the compiled cache of plugins' own files and are as trusted: any thread may rewrite either (a
 * thread is not a security boundary: docs/isolation.md), a process-isolated child neither.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Script } from "node:vm";

const nodeRequire = createRequire(import.meta.url);
/**
 * Required, not imported: thread-entry.ts, an ES module, bundles this file, and an ES import of
 * node:crypto reads every export of it, which loads WebCrypto too (~0.2 ms of a thread's start).
 */
const { createHash } = nodeRequire("node:crypto") as typeof import("node:crypto");

let allowed = false;
/** ES modules of the bundle this thread imported: their twins would be second copies. */
const imported = new Set<string>();
const loaded = new Map<string, Record<string, unknown>>();
/** A script this thread compiled without a usable entry, and where its entry goes. */
export interface Unstored {
  script: Script;
  entry: string;
}
/** Stored once the thread's plugin is ready (storeCodeCaches). */
const unstored: Unstored[] = [];

/**
 * How the thread's program imports an ES module: import() itself, but for the program run as a
 * script (thread-entry.ts), whose import() finds no loader ("A dynamic import callback was not
 * specified": node:vm gives a script one only through importModuleDynamically, which Node 20
 * loses when V8 takes the code from a cache). There thread-entry.ts, an ES module, lends its own.
 */
let importer = (url: string): Promise<Record<string, unknown>> => import(url);

export function importModule(url: string): Promise<Record<string, unknown>> {
  return importer(url);
}

/** thread-entry.ts's import(), for the program it ran from the cache. */
export function lendImport(fn: (url: string) => Promise<Record<string, unknown>>): void {
  importer = fn;
}

/** Called by the thread entries (entry.ts, group-entry.ts): this thread may run twins. */
export function allowRuntimeTwins(): void {
  allowed = true;
}

/** `target` (an alias's ES module) was imported in this thread. */
export function noteImported(target: string): void {
  imported.add(target);
}

/** The CommonJS twin of `target`, or null (none, not allowed here, or its ES module already loaded). */
export function twinOf(target: string): string | null {
  if (!allowed || imported.has(target) || !target.endsWith(".js")) return null;
  const twin = `${target.slice(0, -3)}.cjs`;
  return loaded.has(twin) || existsSync(twin) ? twin : null;
}

/** The twin's exports, run once per thread; `cacheRoot` as the compiled cache's (false: no cache). */
export function requireTwin(twin: string, cacheRoot: string | false): Record<string, unknown> {
  let exports = loaded.get(twin);
  if (!exports) {
    exports = cacheRoot
      ? runWithCodeCache(twin, path.join(cacheRoot, "v8"))
      : (nodeRequire(twin) as Record<string, unknown>);
    loaded.set(twin, exports);
  }
  return exports;
}

/** Runs a CommonJS file as Node would, compiled from (and then into) a V8 code cache entry in `cacheDir`. */
export function runWithCodeCache(file: string, cacheDir: string): Record<string, unknown> {
  const bytes = readFileSync(file);
  const key = createHash("sha256").update(`${process.version}\0${process.arch}\0${file}\0`).update(bytes).digest("hex");
  const source = bytes.toString("utf8");
  const entry = path.join(cacheDir, `${path.basename(file)}.${key.slice(0, 24)}.bin`);
  const cachedData = readEntry(entry);
  // Node's own CommonJS wrapper, on the file's first line: stack frames keep the file's lines.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const mod = { exports: {} as Record<string, unknown> };
  const fn = script.runInThisContext() as (...args: unknown[]) => void;
  fn.call(mod.exports, mod.exports, createRequire(file), mod, file, path.dirname(file));
  if (!cachedData || script.cachedDataRejected) unstored.push({ script, entry });
  return mod.exports;
}

/** The entries missed so far, taken away (thread-entry.ts hands its own to the program it ran). */
export function takeUnstored(): Unstored[] {
  return unstored.splice(0);
}

/** Entries another copy of this module missed (thread-entry.ts's, for the program itself). */
export function adoptUnstored(entries: Unstored[]): void {
  unstored.push(...entries);
}

/**
 * Writes the entries this thread missed. Called once its plugin is ready, so an entry holds what
 * loading a plugin compiled of the file (zod's schema builders, a parse), not only its top level:
 * measured, 4.6 ms to run zod from such an entry against 6.2 ms from one made before running it.
 * An entry is V8's code for this file's functions alone: none of the plugin's code, objects or
 * config is in it.
 */
export function storeCodeCaches(): void {
  for (const { script, entry } of unstored.splice(0)) {
    try {
      store(entry, script.createCachedData());
    } catch {
      // A cache that cannot be made only costs the next start a compile, never this one its plugin.
    }
  }
}

/**
 * An entry's code cache, or undefined: missing, or not what was stored. V8 checks an entry's
 * version, flags and length, not its bytes, so each entry starts with the SHA-256 of the rest, as
 * the compiled cache's entries do: a corrupt entry is compiled over and rewritten, never run.
 */
function readEntry(entry: string): Buffer | undefined {
  let text: Buffer;
  try {
    text = readFileSync(entry);
  } catch {
    return undefined; // a miss
  }
  const data = text.subarray(DIGEST_BYTES);
  const digest = createHash("sha256").update(data).digest();
  return text.length > DIGEST_BYTES && digest.equals(text.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

const DIGEST_BYTES = 32;

/** Writes an entry whole or not at all; an unwritable cache only costs the next start a compile. */
function store(entry: string, data: Buffer): void {
  const tmp = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(path.dirname(entry), { recursive: true });
    writeFileSync(tmp, Buffer.concat([createHash("sha256").update(data).digest(), data]));
    renameSync(tmp, entry);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // its folder could not be made: nothing was written
    }
  }
}
