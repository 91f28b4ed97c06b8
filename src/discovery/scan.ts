/**
 * Scans plugin folders and validates each plugin.json. Configured folders come first; the
 * folder of plugins bundled with Patchbay comes last, so a configured plugin of the same name
 * shadows a bundled one. Every problem is collected, never only the first.
 */
import { symlinkOutOf } from "./symlinks.js";
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
// The three functions only: the package's index loads all of its ~45 modules, on every boot.
import ltr from "semver/ranges/ltr.js";
import validRange from "semver/ranges/valid.js";
import satisfies from "semver/functions/satisfies.js";
import { pbError, type PatchbayError } from "../errors.js";
import type { z } from "zod";
import { KINDS, METHODS } from "../contract/kinds.js";
import { suggest } from "../contract/suggest.js";
import { toPointer } from "../config/issues.js";
import { jsonErrorOffset, lineColumn } from "../config/json-position.js";
import { CORE_QUERY_KEYS, ManifestSchema, PLUGIN_API_VERSION, type Manifest } from "../contract/manifest.js";

export interface DiscoveredPlugin {
  name: string;
  version: string;
  kind: Manifest["kind"];
  /** Absolute folder of the plugin. */
  dir: string;
  /** Absolute path of the entry module, proven to stay inside `dir`. */
  entryPath: string;
  manifest: Manifest;
  bundled: boolean;
  /** The bundled plugin's folder this configured plugin hides, if any. */
  shadows: string | null;
}

export interface Discovery {
  plugins: Map<string, DiscoveredPlugin>;
  errors: PatchbayError[];
  /** Configured folders that do not exist: reported, not fatal (the default "./plugins" may be absent). */
  missingDirs: string[];
}

export function scanPlugins(configuredDirs: readonly string[], bundledDir: string | null): Discovery {
  const plugins = new Map<string, DiscoveredPlugin>();
  const errors: PatchbayError[] = [];
  const missingDirs: string[] = [];
  const bundledReal = bundledDir && existsSync(bundledDir) ? realpathSync(bundledDir) : null;
  const seenDirs = new Set<string>();

  for (const dir of configuredDirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      missingDirs.push(dir);
      continue;
    }
    const real = realpathSync(dir);
    if (seenDirs.has(real)) continue;
    seenDirs.add(real);
    for (const found of readPluginFolder(real, false, errors)) {
      const previous = plugins.get(found.name);
      if (previous) {
        errors.push(
          pbError(
            "PB_ERR_PLUGIN_DUPLICATE",
            `Plugin "${found.name}" is declared twice: in ${previous.dir} and in ${found.dir}.`,
            { plugin: found.name, folders: [previous.dir, found.dir] },
          ),
        );
        continue;
      }
      plugins.set(found.name, found);
    }
  }

  // The bundled folder is scanned last and never overrides; when it is also configured it was read above.
  if (bundledReal && !seenDirs.has(bundledReal)) {
    for (const found of readPluginFolder(bundledReal, true, errors)) {
      const configured = plugins.get(found.name);
      if (configured) configured.shadows = found.dir;
      else plugins.set(found.name, found);
    }
  }
  return { plugins, errors, missingDirs };
}

function readPluginFolder(root: string, bundled: boolean, errors: PatchbayError[]): DiscoveredPlugin[] {
  const found: DiscoveredPlugin[] = [];
  // Code-point order, not localeCompare: its first call builds ICU's collator, ~15 ms of every boot.
  for (const entry of readdirSync(root, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : +(a.name > b.name),
  )) {
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    const dir = path.join(root, entry.name);
    const manifestPath = path.join(dir, "plugin.json");
    if (!existsSync(manifestPath)) continue;
    const result = readManifest(dir, manifestPath, bundled);
    if ("error" in result) errors.push(result.error);
    else found.push(result.plugin);
  }
  return found;
}

export function readManifest(
  dir: string,
  manifestPath: string,
  bundled: boolean,
): { plugin: DiscoveredPlugin } | { error: PatchbayError } {
  const fail = (message: string, data: Record<string, unknown> = {}) => ({
    error: pbError("PB_ERR_PLUGIN_MANIFEST_INVALID", `${manifestPath}: ${message}`, { file: manifestPath, ...data }),
  });
  let raw: unknown;
  let text = "";
  try {
    text = readFileSync(manifestPath, "utf8");
    raw = JSON.parse(text);
  } catch (err) {
    const { line, column } = lineColumn(text, jsonErrorOffset(text));
    return fail(`not valid JSON at line ${line}, column ${column} (${(err as Error).message})`, { line, column });
  }
  // jitless: each manifest is parsed once per boot, where zod's compiled fast path costs more to build than it saves.
  const parsed = ManifestSchema.safeParse(raw, { jitless: true, reportInput: true });
  if (!parsed.success) {
    const issues = manifestIssues(parsed.error.issues);
    return fail(issues.map((i) => `${i.pointer}: ${i.message}`).join("; "), { issues });
  }
  const manifest = parsed.data;
  const optional = METHODS[manifest.kind].optional;
  const unknownCaps = manifest.capabilities.filter((c) => !optional.includes(c));
  if (unknownCaps.length > 0) {
    return fail(
      `capabilities ${unknownCaps.map((c) => `"${c}"`).join(", ")} are not optional methods of kind ${manifest.kind} (it has: ${optional.join(", ") || "none"})`,
    );
  }
  const queryProblem = queryDeclarationProblem(manifest);
  if (queryProblem) return fail(queryProblem);
  const apiProblem = checkApiRange(manifest);
  if (apiProblem) return { error: apiProblem };
  const entry = resolveEntry(dir, manifest);
  if ("error" in entry) return entry;
  const link = symlinkOutOf(dir);
  if (link) {
    return {
      error: pbError(
        "PB_ERR_PLUGIN_SYMLINK_ESCAPE",
        `Plugin "${manifest.name}": ${link[0]} is a symlink to ${link[1]}, outside the plugin folder.`,
        { plugin: manifest.name, link: link[0], target: link[1], folder: dir },
      ),
    };
  }
  return {
    plugin: {
      name: manifest.name,
      version: manifest.version,
      kind: manifest.kind,
      dir,
      entryPath: entry.path,
      manifest,
      bundled,
      shadows: null,
    },
  };
}

/** `modes`/`filters` only mean something to a memory store; elsewhere they would be silently ignored. */
function queryDeclarationProblem(manifest: Manifest): string | null {
  for (const key of ["modes", "filters"] as const) {
    const list = manifest[key];
    if (!list) continue;
    if (manifest.kind !== "memory-store")
      return `"${key}" applies to memory-store plugins only (this is a ${manifest.kind} plugin)`;
    const dup = list.find((v, i) => list.indexOf(v) !== i);
    if (dup) return `${key} lists "${dup}" twice`;
  }
  const core = manifest.filters?.find((f) => CORE_QUERY_KEYS.includes(f));
  return core ? `filters must not list "${core}": query, limit and mode are part of every query` : null;
}

/**
 * What the host's plugin API says to a range, by range: every bundled plugin declares the same one,
 * read on every boot.
 */
const rangeVerdicts = new Map<string, { range: string | null; satisfied: boolean; pluginIsNewer: boolean }>();

function rangeVerdict(declared: string) {
  let verdict = rangeVerdicts.get(declared);
  if (!verdict) {
    const range = validRange(declared);
    const satisfied = range !== null && satisfies(PLUGIN_API_VERSION, range);
    verdict = { range, satisfied, pluginIsNewer: range !== null && !satisfied && ltr(PLUGIN_API_VERSION, range) };
    rangeVerdicts.set(declared, verdict);
  }
  return verdict;
}

function checkApiRange(manifest: Manifest): PatchbayError | null {
  const { range, satisfied, pluginIsNewer } = rangeVerdict(manifest.patchbay);
  if (!range) {
    return pbError(
      "PB_ERR_PLUGIN_MANIFEST_INVALID",
      `Plugin "${manifest.name}": "patchbay": "${manifest.patchbay}" is not a semver range (try "^1").`,
      { plugin: manifest.name },
    );
  }
  if (satisfied) return null;
  // pluginIsNewer: the host is below the range, so the plugin was written for a newer host.
  const upgrade = pluginIsNewer
    ? "upgrade Patchbay (the host) to a version that provides it"
    : "upgrade the plugin to one written for this plugin API";
  return pbError(
    "PB_ERR_PLUGIN_API_MISMATCH",
    `Plugin "${manifest.name}" needs plugin API ${manifest.patchbay}, but this host provides ${PLUGIN_API_VERSION}: ${upgrade}.`,
    {
      plugin: manifest.name,
      needs: manifest.patchbay,
      provides: PLUGIN_API_VERSION,
      upgrade: pluginIsNewer ? "host" : "plugin",
    },
  );
}

function resolveEntry(dir: string, manifest: Manifest): { path: string } | { error: PatchbayError } {
  const escapes = (why: string) => ({
    error: pbError("PB_ERR_PLUGIN_ENTRY_ESCAPE", `Plugin "${manifest.name}": entry "${manifest.entry}" ${why}.`, {
      plugin: manifest.name,
      entry: manifest.entry,
      folder: dir,
    }),
  });
  const entry = manifest.entry;
  if (path.isAbsolute(entry) || /^[A-Za-z]:/.test(entry)) return escapes("is an absolute path");
  if (entry.split(/[\\/]/).includes("..")) return escapes("uses '..' to leave the plugin folder");
  const full = path.join(dir, entry);
  if (!existsSync(full)) {
    return {
      error: pbError(
        "PB_ERR_PLUGIN_LOAD_FAILED",
        `Plugin "${manifest.name}": entry "${entry}" does not exist in ${dir}.`,
        { plugin: manifest.name, entry },
      ),
    };
  }
  const realDir = realpathSync(dir);
  const realEntry = realpathSync(full);
  if (!realEntry.startsWith(realDir + path.sep))
    return escapes(`resolves through a symlink to ${realEntry}, outside the plugin folder`);
  return { path: realEntry };
}

/** plugin.json's problems in the words connectors.json's get: a misspelt key or kind gets its guess. */
function manifestIssues(issues: readonly z.core.$ZodIssue[]): { pointer: string; message: string }[] {
  return issues.flatMap((i) => {
    const pointer = toPointer(i.path);
    if (i.code === "unrecognized_keys")
      return i.keys.map((key) => {
        const known = i.path.length === 0 ? Object.keys(ManifestSchema.shape) : [];
        const guess = suggest(key, known);
        return {
          pointer: toPointer([...i.path, key]),
          message: `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ""}`,
        };
      });
    if ((i.code === "invalid_type" || i.code === "invalid_value") && i.input === undefined)
      return [{ pointer, message: "is required" }];
    if (i.code === "invalid_value" && i.path[0] === "kind" && typeof i.input === "string") {
      const guess = suggest(i.input, KINDS);
      return [
        {
          pointer,
          message: `"${i.input}" is not a kind${guess ? ` (did you mean "${guess}"?)` : ""}; kinds: ${KINDS.join(", ")}`,
        },
      ];
    }
    return [{ pointer, message: i.message }];
  });
}
