/**
 * Inside the worker: imports the plugin's entry with jiti, checks that it is a definePlugin()
 * of the manifest's kind, validates the instance config against the plugin's own schema, and
 * resolves path-marked fields against the connectors.json folder.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { createJiti as CreateJiti } from "jiti";
import { type PatchbayError, pbError } from "../errors.js";
import type { InstanceTask } from "../contract/rpc.js";
import { walkMarkedFields } from "./schema-walk.js";
import { importCompiled } from "./compiled-cache.js";
import { describeConfigIssues } from "./config-issues.js";
import { enableSourceMaps, locate, pluginRelative, reasonOf } from "./plugin-location.js";
import { suggest } from "../contract/suggest.js";

const PLUGIN_BRAND = Symbol.for("patchbay.plugin");

/** Packages a plugin imports from node_modules are loaded natively: transpiling them is slow and pointless. */
const NATIVE_MODULES = ["zod", "better-sqlite3", "@modelcontextprotocol/sdk", "pg", "pino"];

export interface LoadedDefinition {
  kind: string;
  config: {
    safeParse(
      value: unknown,
      params?: { jitless?: boolean },
    ): { success: boolean; data?: unknown; error?: { issues: ZodIssueLike[] } };
  };
  create(config: unknown, ctx: unknown): unknown;
}

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

/**
 * jiti through require(), not import: jiti is a 190 KB CommonJS bundle, and an ESM import of it
 * makes Node scan the whole bundle for its exports first (measured: ~75 ms of a worker's start
 * against ~17 ms for require). Loaded only when a plugin is loaded through it.
 */
function loadJiti(): typeof CreateJiti {
  return (createRequire(import.meta.url)("jiti") as { createJiti: typeof CreateJiti }).createJiti;
}

/**
 * Node maps stack frames through jiti's inline source maps only while source maps are on, and
 * only for what it compiles after that. They are turned on here and not for the compiled cache:
 * its files keep their lines (retainLines) and are compiled by V8 directly, which Node never maps
 * anyway, while with maps on Node reads and indexes the .map file of every package the plugin
 * loads (the MCP SDK ships one per file: ~40 ms of an mcp-remote worker's start, measured).
 */
function importThroughJiti(jiti: ReturnType<typeof CreateJiti>, entryPath: string): Promise<unknown> {
  enableSourceMaps();
  return jiti.import(entryPath, { default: true });
}

export async function importDefinition(task: InstanceTask): Promise<LoadedDefinition> {
  let jiti: ReturnType<typeof CreateJiti> | null = null;
  const getJiti = () =>
    (jiti ??= loadJiti()(import.meta.url, {
      fsCache: task.jitiCacheDir,
      // Inline maps, so the plugin's stack frames name its .ts lines (plugin-location.ts).
      sourceMaps: true,
      alias: task.aliases,
      interopDefault: true,
      nativeModules: NATIVE_MODULES,
    }));
  let mod: unknown;
  try {
    // The compiled cache first (no jiti at all when it is fresh); jiti for what it cannot run.
    const compiled = await importCompiled({
      entryPath: task.entryPath,
      pluginDir: task.pluginDir,
      pluginName: task.pluginName,
      cacheRoot: task.jitiCacheDir,
      aliases: task.aliases,
      nativeModules: NATIVE_MODULES,
      transform: (source, filename) =>
        getJiti().transform({ source, filename, ts: true, async: false, interopDefault: true, retainLines: true }),
    });
    mod = compiled
      ? "default" in compiled
        ? compiled.default
        : compiled
      : await importThroughJiti(getJiti(), task.entryPath);
  } catch (err) {
    const at = locate(err, task.pluginDir);
    const where = at
      ? `${pluginRelative(task.pluginDir, at.file)}:${at.line}:${at.column}`
      : pluginRelative(task.pluginDir, task.entryPath);
    throw pbError(
      "PB_ERR_PLUGIN_LOAD_FAILED",
      `Plugin "${task.pluginName}" (${task.instance}) failed to load ${where}: ${unknownSubpath(reasonOf(err), task.aliases)}`,
      {
        instance: task.instance,
        plugin: task.pluginName,
        ...(at ? { file: at.file, line: at.line, column: at.column, frame: at.frame } : {}),
      },
    );
  }
  const def = mod as Partial<LoadedDefinition> & { [PLUGIN_BRAND]?: boolean };
  if (
    !def ||
    typeof def !== "object" ||
    def[PLUGIN_BRAND] !== true ||
    typeof def.create !== "function" ||
    !def.config ||
    typeof def.config.safeParse !== "function"
  ) {
    throw pbError(
      "PB_ERR_PLUGIN_LOAD_FAILED",
      `Plugin "${task.pluginName}" (${task.instance}): the default export of ${pluginRelative(task.pluginDir, task.entryPath)} is not definePlugin({ kind, config, create }).`,
      {
        instance: task.instance,
        plugin: task.pluginName,
      },
    );
  }
  if (def.kind !== task.kind) {
    throw pbError(
      "PB_ERR_PLUGIN_LOAD_FAILED",
      `Plugin "${task.pluginName}": plugin.json says kind "${task.kind}" but definePlugin says "${String(def.kind)}".`,
      {
        instance: task.instance,
        plugin: task.pluginName,
      },
    );
  }
  return def as LoadedDefinition;
}

export interface ParsedConfig {
  config: unknown;
  secrets: string[];
}

/** Validates and prepares the instance config; the secrets are returned even when validation fails. */
export function parseInstanceConfig(
  def: LoadedDefinition,
  task: InstanceTask,
): ParsedConfig | { error: PatchbayError; secrets: string[] } {
  const secrets: string[] = [];
  walkMarkedFields(def.config, structuredClone(task.config), (f) => {
    if (f.marks.secret) secrets.push(f.value as string);
  });
  // Once per worker start: zod's compiled fast path (jitless: false) would cost more to build than it saves.
  const parsed = def.config.safeParse(task.config, { jitless: true });
  if (!parsed.success) {
    const issues = describeConfigIssues(def.config, parsed.error?.issues ?? []);
    const lines = issues.map((i) => `config.${i.field || "(root)"}: ${i.message}`);
    return {
      secrets,
      error: pbError(
        "PB_ERR_INSTANCE_CONFIG_INVALID",
        `${task.instance} (plugin "${task.pluginName}"): ${lines.join("; ")}`,
        {
          instance: task.instance,
          plugin: task.pluginName,
          issues,
        },
      ),
    };
  }
  const config = parsed.data;
  walkMarkedFields(def.config, config, (f) => {
    if (f.marks.secret) secrets.push(f.value as string);
    if (f.marks.path) f.set(resolveConfigPath(task.configDir, f.value as string));
  });
  return { config, secrets };
}

/** Relative paths are relative to connectors.json; ":memory:"-style names are passed through. */
function resolveConfigPath(base: string, value: string): string {
  if (value === "" || value.startsWith(":") || path.isAbsolute(value)) return value;
  return path.resolve(base, value);
}

/**
 * jiti maps an alias by prefix, so a mistyped subpath ("patchbay/plugins") fails as a file under
 * the alias's target (`…/dist/index.js/plugins`), a path that names neither the import nor the fix.
 * Such a reason is said again as the import the plugin wrote, with the modules Patchbay provides.
 */
export function unknownSubpath(reason: string, aliases: Record<string, string>): string {
  for (const [spec, target] of Object.entries(aliases)) {
    const at = reason.indexOf(`${target}/`);
    if (at < 0) continue;
    const asked = `${spec}/${/^[^'"\s]+/.exec(reason.slice(at + target.length + 1))?.[0] ?? ""}`;
    const provided = Object.keys(aliases).filter((a) => a === "patchbay" || a.startsWith("patchbay/"));
    const guess = suggest(asked, provided);
    return (
      `Cannot find module "${asked}": Patchbay provides ${provided.map((p) => `"${p}"`).join(", ")}` +
      (guess ? ` (did you mean "${guess}"?)` : "") +
      "."
    );
  }
  return reason;
}
