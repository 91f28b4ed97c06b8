/**
 * What `plugin new` tells the author to do next: wire, check, make it yours. The wiring step
 * is exactly what connectors.json needs for the new folder to boot unchanged: every template's
 * config has working defaults, so the entry names only the plugin, plus the plugin's parent
 * folder in "plugins" when connectors.json does not already scan it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_PLUGIN_DIRS } from "../config/schema.js";
import { resolveConfigPath } from "../config/source.js";
import type { ScaffoldResult } from "./scaffold.js";

export interface NextSteps {
  /** The connectors.json fragment that wires one instance (named after the plugin). */
  entry: Record<string, Record<string, { plugin: string }>>;
  /**
   * The folder to add to connectors.json "plugins" (relative to it), or null when it already scans
   * the plugin's parent.
   */
  pluginsDir: string | null;
  /** Three steps, in order, each one line of plain text. */
  steps: [string, string, string];
}

export interface Scanned {
  /** The folder connectors.json is in (or would be: the working folder). */
  base: string;
  /** Absolute folders it scans for plugins. */
  dirs: string[];
}

/**
 * The plugin folders of the connectors.json `patchbay boot` would use from `cwd`, read leniently
 * (raw "plugins" only: a file with other problems is boot's to report, not plugin new's).
 */
export function scannedDirs(cwd: string, env: Record<string, string | undefined> = process.env): Scanned {
  try {
    const { file } = resolveConfigPath({ cwd, env });
    const base = path.dirname(file);
    const raw = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, "")) as { plugins?: unknown };
    const listed =
      Array.isArray(raw.plugins) && raw.plugins.every((d) => typeof d === "string")
        ? (raw.plugins as string[])
        : DEFAULT_PLUGIN_DIRS;
    return { base, dirs: listed.map((d) => path.resolve(base, d)) };
  } catch {
    return { base: cwd, dirs: DEFAULT_PLUGIN_DIRS.map((d) => path.resolve(cwd, d)) };
  }
}

/** `cwd` is where the author runs patchbay; `scanned` what its connectors.json scans. */
export function nextSteps(result: ScaffoldResult, cwd: string, scanned: Scanned = scannedDirs(cwd)): NextSteps {
  const parent = path.dirname(result.dir);
  const pluginsDir = scanned.dirs.includes(parent) ? null : relativeDir(scanned.base, parent);
  const entry = { [result.section]: { [result.name]: { plugin: result.name } } };
  const where = relativeDir(cwd, result.dir);

  const wire =
    `Wire it: add ${JSON.stringify(entry).replace(/:/g, ": ").replace(/,/g, ", ")} to connectors.json` +
    (pluginsDir ? ` and list ${JSON.stringify(pluginsDir)} in its "plugins".` : ".");
  const check = `Check it: npx patchbay boot, then npx patchbay plugin test ${result.name} (every claim should pass).`;
  const own = `Make it yours: replace the example substrate at the "SUBSTRATE:" comments in ${where}/src/index.ts, then run the check again.`;
  return { entry, pluginsDir, steps: [wire, check, own] };
}

/** "./x/y" or "../x" (absolute only across Windows drives), with "/" separators for JSON and shells alike. */
function relativeDir(from: string, dir: string): string {
  const rel = path.relative(from, dir);
  if (rel === "") return ".";
  if (path.isAbsolute(rel)) return dir.split(path.sep).join("/");
  const posix = rel.split(path.sep).join("/");
  return posix.startsWith("..") ? posix : "./" + posix;
}
