/**
 * Runs a plugin from its compiled cache without loading jiti: each of the plugin's TypeScript
 * files is transpiled once (by jiti, only when its cache entry is missing, stale or corrupt) to
 * CommonJS, stored in a folder of that plugin's own, and evaluated here with V8 directly. A
 * worker that finds every entry fresh never loads jiti (measured: jiti's load is most of a warm
 * worker start after zod, and 3.5 MiB of every idle instance).
 *
 * Plugins whose files import each other, Node's built-ins, "patchbay/plugin" | "patchbay/testing"
 * and the packages jiti itself would load natively (`nativeModules`: better-sqlite3, pg, the MCP
 * SDK...) run this way; those packages are required from the importing file, as jiti does. A
 * plugin that imports any other package returns null here and is loaded by jiti as before
 * (transpiling a package is jiti's job).
 *
 * An entry is named by the hash of its source path and content, so an edited file is a miss;
 * its first line holds the hash of the code below it, so a truncated or altered entry is a miss
 * too (then rewritten), never evaluated.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compileFunction } from "node:vm";
import { importModule, noteImported, requireTwin, twinOf } from "./runtime-twin.js";

const HEADER = "// patchbay-compiled ";
const EXTENSIONS = ["", ".ts", ".mts", ".js", ".mjs", "/index.ts", "/index.js"];
const BUILTINS = new Set(builtinModules);
const nodeRequire = createRequire(import.meta.url);

export interface CompiledOptions {
  entryPath: string;
  pluginDir: string;
  pluginName: string;
  /** The jiti cache root; null/false = no cache, so no compiled run. */
  cacheRoot: string | false;
  aliases: Record<string, string>;
  /** Packages required natively from the importing file (jiti's `nativeModules`: the same list, the same loading). */
  nativeModules?: readonly string[];
  /** Transpiles one file to CommonJS (jiti, loaded lazily by the caller). */
  transform(source: string, filename: string): string;
}

interface Unit {
  file: string;
  code: string;
  module: { exports: Record<string, unknown> } | null;
}

/**
 * An alias ("patchbay/plugin", a bundled SDK module) is an ES module, so it is imported (async)
 * before the first file that requires it runs: the entry's static imports before the entry, a
 * dynamic import()'s before that import resolves. Not all at link time: mcp-remote's entry starts
 * its server and only then import()s the SDK, so the server boots while the SDK loads.
 */
class AliasModule {
  private ns: Record<string, unknown> | null = null;
  /** Its CommonJS twin, run instead when every alias of the plugin has one (runtime-twin.ts). */
  twin: string | null = null;
  constructor(readonly target: string) {}
  async load(cacheRoot: string | false): Promise<void> {
    if (this.ns) return;
    if (this.twin) return void (this.ns = esModule(requireTwin(this.twin, cacheRoot)));
    this.ns = esModule(await importModule(pathToFileURL(this.target).href));
    noteImported(this.target);
  }
  get exports(): Record<string, unknown> {
    if (!this.ns) throw new Error(`${this.target} was required before it was imported`);
    return this.ns;
  }
}

/** The plugin's entry module's exports, or null when this plugin must go through jiti. */
export async function importCompiled(opts: CompiledOptions): Promise<Record<string, unknown> | null> {
  if (!opts.cacheRoot) return null;
  const dir = path.join(opts.cacheRoot, "compiled", `${opts.pluginName}-${hash(opts.pluginDir).slice(0, 12)}`);
  const units = new Map<string, Unit>();
  const external = new Map<string, unknown>();
  // Link: every file the entry reaches, compiled; every alias imported natively. Any trouble
  // here (a file jiti cannot transpile, an import we do not resolve) leaves it to jiti, which
  // reports it in its own words; nothing of the plugin has run yet.
  try {
    if (!(await link(dir, opts, units, external))) return null;
  } catch {
    return null;
  }
  const aliases = [...external.values()].filter((v): v is AliasModule => v instanceof AliasModule);
  const twins = aliases.map((a) => twinOf(a.target));
  if (twins.every((t) => t !== null)) for (const [i, a] of aliases.entries()) a.twin = twins[i];
  await importAliases(opts.entryPath, units, external, opts);
  return evaluate(units.get(opts.entryPath)!, units, external, opts);
}

/** Imports every alias that `from` (a spec, or a file's path) and the files it requires reach. */
async function importAliases(
  from: string,
  units: Map<string, Unit>,
  external: Map<string, unknown>,
  opts: CompiledOptions,
): Promise<void> {
  const pending: Promise<void>[] = [];
  const seen = new Set<string>();
  const visit = (spec: string, file: string | null): void => {
    const value = external.get(spec);
    if (value instanceof AliasModule) return void pending.push(value.load(opts.cacheRoot));
    if (!file || seen.has(file)) return;
    seen.add(file);
    for (const dep of staticRequires(units.get(file)!.code))
      visit(dep, dep.startsWith(".") ? resolveRelative(file, dep, opts.pluginDir) : null);
  };
  visit(from, units.has(from) ? from : null);
  await Promise.all(pending);
}

async function link(
  dir: string,
  opts: CompiledOptions,
  units: Map<string, Unit>,
  external: Map<string, unknown>,
): Promise<boolean> {
  const queue = [opts.entryPath];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (units.has(file)) continue;
    const code = compiled(dir, file, opts);
    units.set(file, { file, code, module: null });
    for (const spec of requires(code)) {
      if (spec.startsWith(".")) {
        const dep = resolveRelative(file, spec, opts.pluginDir);
        if (!dep) return false;
        queue.push(dep);
      } else if (Object.hasOwn(opts.aliases, spec)) {
        if (!external.has(spec)) external.set(spec, new AliasModule(opts.aliases[spec]!));
      } else if (BUILTINS.has(spec.replace(/^node:/, ""))) {
        // Required when the importing file runs, as a package is: a built-in that only a path not
        // taken reaches (mcp-remote's OAuth, node:http, for a stdio server) is never loaded.
        if (!external.has(spec)) external.set(spec, new NativePackage(spec));
      } else if (spec.startsWith("node:")) {
        external.set(spec, nodeRequire(spec)); // an unknown built-in throws here: jiti reports it
      } else if (isNativeModule(spec, opts.nativeModules)) {
        // Resolved now (a missing package leaves the plugin to jiti, which reports it), required
        // when the importing file runs, in the plugin's own order.
        const resolved = createRequire(file).resolve(spec);
        if (!external.has(spec)) external.set(spec, new NativePackage(resolved));
      } else {
        return false; // a package of the plugin's own: jiti resolves those
      }
    }
  }
  return true;
}

function evaluate(
  unit: Unit,
  units: Map<string, Unit>,
  external: Map<string, unknown>,
  opts: CompiledOptions,
): Record<string, unknown> {
  if (unit.module) return unit.module.exports;
  const module = { exports: {} as Record<string, unknown> };
  unit.module = module; // before running it: a cycle sees the partial exports, as CommonJS does
  const require = (spec: string): unknown => {
    if (external.has(spec)) {
      const value = external.get(spec);
      return value instanceof NativePackage ? value.load() : value instanceof AliasModule ? value.exports : value;
    }
    const dep = spec.startsWith(".") ? resolveRelative(unit.file, spec, opts.pluginDir) : null;
    const target = dep ? units.get(dep) : undefined;
    if (!target) throw new Error(`Cannot find module "${spec}" from ${unit.file}`);
    return evaluate(target, units, external, opts);
  };
  // A dynamic import() in the plugin: linked like a static one (link() followed it too); the
  // aliases it reaches are imported first.
  const jitiImport = async (spec: string): Promise<unknown> => {
    const dep = spec.startsWith(".") ? resolveRelative(unit.file, spec, opts.pluginDir) : null;
    await importAliases(dep ?? spec, units, external, opts);
    return require(spec);
  };
  const fn = compileFunction(unit.code, ["exports", "require", "module", "__filename", "__dirname", "jitiImport"], {
    filename: unit.file,
  });
  fn.call(module.exports, module.exports, require, module, unit.file, path.dirname(unit.file), jitiImport);
  return module.exports;
}

/** A package or built-in a plugin imports, loaded the first time a file of the plugin requires it. */
class NativePackage {
  constructor(private readonly resolved: string) {}
  load(): unknown {
    return nodeRequire(this.resolved);
  }
}

/** `spec` is one of the native modules or a subpath of one ("@modelcontextprotocol/sdk/client/index.js"). */
function isNativeModule(spec: string, natives: readonly string[] | undefined): boolean {
  return !!natives?.some((n) => spec === n || spec.startsWith(n + "/"));
}

/** The compiled code of `file`: from the cache when fresh and intact, else transpiled and stored. */
function compiled(dir: string, file: string, opts: CompiledOptions): string {
  const source = readFileSync(file, "utf8");
  const entry = path.join(
    dir,
    `${path.basename(file).replace(/[^A-Za-z0-9_.-]/g, "_")}.${hash(file + "\0" + source).slice(0, 20)}.cjs`,
  );
  try {
    const text = readFileSync(entry, "utf8");
    const nl = text.indexOf("\n");
    const code = text.slice(nl + 1);
    if (nl > 0 && text.slice(0, nl) === HEADER + hash(code)) return code;
  } catch {
    // a miss
  }
  const code = opts.transform(source, file);
  if (code.includes("__JITI_ERROR__")) throw new Error(`transpiling ${file} failed`);
  try {
    mkdirSync(dir, { recursive: true });
    const tmp = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(tmp, `${HEADER}${hash(code)}\n${code}`);
    renameSync(tmp, entry);
  } catch {
    rmSync(entry, { force: true }); // an unwritable cache only costs the next start a transform
  }
  return code;
}

/**
 * The specifiers babel's CommonJS output requires (it always writes require("...") with double
 * quotes). Its printer may break a line inside the parentheses (a dynamic import() in an array:
 * `jitiImport(\n "./a.js")`), so white space is allowed there.
 */
function requires(code: string): string[] {
  return [...code.matchAll(/\b(?:require|jitiImport)\(\s*"((?:[^"\\]|\\.)*)"\s*\)/g)].map(
    (m) => JSON.parse(`"${m[1]}"`) as string,
  );
}

/** What a file requires as it runs: its static imports, not its dynamic import()s. */
function staticRequires(code: string): string[] {
  return [...code.matchAll(/\brequire\(\s*"((?:[^"\\]|\\.)*)"\s*\)/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
}

/** A relative import of the plugin's own files; null when it leaves the plugin folder or is not found. */
function resolveRelative(from: string, spec: string, pluginDir: string): string | null {
  const base = path.resolve(path.dirname(from), spec);
  const stripped = base.replace(/\.(js|mjs)$/, "");
  for (const candidate of [...EXTENSIONS.map((e) => base + e), ...EXTENSIONS.map((e) => stripped + e)]) {
    if (!candidate.startsWith(pluginDir + path.sep)) return null;
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
  }
  return null;
}

/** An ES module namespace as babel's interop expects a CommonJS export of one. */
function esModule(ns: Record<string, unknown>): Record<string, unknown> {
  return Object.freeze({ ...ns, __esModule: true });
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
