/**
 * The pre-compiled adapter cache that lets `patchbay hook` answer PreToolUse without a worker,
 * zod or jiti. A full (slow) hook run writes it: the adapter's `fastHook` module compiled once to
 * CommonJS, the instance's effective capabilities and `protect` list, and a key of everything they
 * depend on (connectors.json, plugin files, certification files, the client binary, the state
 * folder). The fast path uses it only while every part of the key still matches; otherwise the
 * full path runs and rewrites it. Cheap to import: node builtins only (jiti is loaded when building).
 */
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { EventKind } from "../adapter-sdk/event-kinds.js";

const CACHE_VERSION = 1;

export interface HookCache {
  v: number;
  instance: string;
  /** path → "mtimeMs:size" (or "absent") of every file the cached facts were derived from. */
  key: Record<string, string>;
  /** PATH and PATCHBAY_HOME at build time: another PATH may find another client. */
  env: { PATH: string; PATCHBAY_HOME: string };
  timeoutMs: number;
  protect: string[];
  effective: string[];
  client: string;
  /** The adapter-inbox database and recipient this instance reads (the standard `inbox` key), or null. */
  inbox: { path: string; recipient: string } | null;
  /** The compiled fastHook module (CommonJS). */
  module: string;
  /** What `patchbay/adapter` resolves to inside it: the zod-free slim entry. */
  slim: string;
}

const cacheDir = (stateDir: string, instance: string) =>
  path.join(stateDir, "hook-cache", instance.replace(/^adapters\//, ""));
const cacheFile = (stateDir: string, instance: string) => path.join(cacheDir(stateDir, instance), "cache.json");

function fileStamp(file: string): string {
  try {
    const st = statSync(file);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return "absent";
  }
}

/** The cache, if it exists and every stamp in its key still matches; else null. */
export function readHookCache(
  stateDir: string,
  instance: string,
  env: Record<string, string | undefined>,
): HookCache | null {
  let cache: HookCache;
  try {
    cache = JSON.parse(readFileSync(cacheFile(stateDir, instance), "utf8")) as HookCache;
  } catch {
    return null;
  }
  if (
    cache.v !== CACHE_VERSION ||
    cache.env.PATH !== (env.PATH ?? "") ||
    cache.env.PATCHBAY_HOME !== (env.PATCHBAY_HOME ?? "")
  )
    return null;
  for (const [file, stamp] of Object.entries(cache.key)) if (fileStamp(file) !== stamp) return null;
  return cache;
}

export interface FastModule {
  normalizeHook(
    payload: unknown,
    event: string | null,
  ): { kind: EventKind; targets: readonly string[]; tool: string | null; cwd: string };
  denyOutcome(reason: string, event: unknown): { stdout: string; stderr: string; exitCode: number };
  guardWrite?(event: unknown, protect: readonly string[]): { decision: "allow" | "deny"; reason?: string };
}

/**
 * Evaluates the compiled module. Its `require` resolves `patchbay/adapter` to the slim entry (already
 * imported by the caller) and node builtins; anything else throws, and the caller takes the full path.
 */
export function loadFastModule(cache: HookCache, slim: Record<string, unknown>): FastModule {
  const code = readFileSync(cache.module, "utf8");
  const nodeRequire = createRequire(cache.module);
  const req = (id: string) => {
    if (id === "patchbay/adapter") return slim;
    if (id.startsWith("node:") || ["fs", "path", "os", "url", "crypto"].includes(id)) return nodeRequire(id);
    throw new Error(`fastHook module imports ${id}, which the fast path does not load`);
  };
  const mod = { exports: {} as Record<string, unknown> };
  // new Function runs the adapter's own module, compiled by us from its folder: code the operator
  // installed, never text from a payload.
  new Function("require", "module", "exports", "__filename", "__dirname", code)(
    req,
    mod,
    mod.exports,
    cache.module,
    path.dirname(cache.module),
  );
  const m = mod.exports as unknown as FastModule;
  if (typeof m.normalizeHook !== "function" || typeof m.denyOutcome !== "function")
    throw new Error("fastHook module lacks normalizeHook or denyOutcome");
  return m;
}

export interface BuildFacts {
  stateDir: string;
  instance: string;
  source: string;
  keyFiles: string[];
  env: Record<string, string | undefined>;
  timeoutMs: number;
  protect: string[];
  effective: string[];
  client: string;
  inbox: { path: string; recipient: string } | null;
  slim: string;
}

/**
 * Compiles the fastHook module with jiti's transform and writes the cache atomically, unless a
 * fresh one says the same. Never throws.
 */
export async function writeHookCache(facts: BuildFacts): Promise<boolean> {
  try {
    const current = readHookCache(facts.stateDir, facts.instance, facts.env);
    const same = (a: readonly string[], b: readonly string[]) => JSON.stringify(a) === JSON.stringify(b);
    if (
      current &&
      current.timeoutMs === facts.timeoutMs &&
      current.client === facts.client &&
      JSON.stringify(current.inbox) === JSON.stringify(facts.inbox) &&
      same(current.protect, facts.protect) &&
      same(current.effective, facts.effective) &&
      same(Object.keys(current.key).sort(), [...new Set([...facts.keyFiles, facts.source, facts.slim])].sort())
    )
      return true;
    const { createJiti } = await import("jiti");
    const jiti = createJiti(facts.source);
    const code = jiti.transform({ source: readFileSync(facts.source, "utf8"), filename: facts.source, ts: true });
    const dir = cacheDir(facts.stateDir, facts.instance);
    mkdirSync(dir, { recursive: true });
    const module = path.join(dir, "fast-hook.cjs");
    writeFileSync(module, code);
    const key = Object.fromEntries([...facts.keyFiles, facts.source, facts.slim].map((f) => [f, fileStamp(f)]));
    const cache: HookCache = {
      v: CACHE_VERSION,
      instance: facts.instance,
      key,
      env: { PATH: facts.env.PATH ?? "", PATCHBAY_HOME: facts.env.PATCHBAY_HOME ?? "" },
      timeoutMs: facts.timeoutMs,
      protect: facts.protect,
      effective: facts.effective,
      client: facts.client,
      inbox: facts.inbox,
      module,
      slim: facts.slim,
    };
    const file = cacheFile(facts.stateDir, facts.instance);
    writeFileSync(`${file}.tmp`, JSON.stringify(cache));
    renameSync(`${file}.tmp`, file);
    return true;
  } catch {
    return false;
  }
}
