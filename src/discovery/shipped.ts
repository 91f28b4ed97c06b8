/**
 * Whether a plugin ships with Patchbay: listed in plugins/bundled.json and loaded from its folder
 * in Patchbay's own plugins/ (after symlinks). A configured plugin that takes a shipped plugin's
 * name is not one, and neither is one an operator dropped into plugins/ next to them. Only a
 * shipped plugin may run on the host's own thread (host-isolation.ts), and only one gets the MCP
 * SDK's bundled copy (bundledSdkAliases in paths.ts), because its imports are known.
 */
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { bundledPluginsDir } from "../paths.js";

export function isShippedPlugin(dir: string): boolean {
  try {
    const root = realpathSync(bundledPluginsDir());
    const real = realpathSync(dir);
    if (path.dirname(real) !== root) return false;
    const shipped = JSON.parse(readFileSync(path.join(root, "bundled.json"), "utf8")) as { plugins?: object };
    return Object.hasOwn(shipped.plugins ?? {}, path.basename(real));
  } catch {
    return false;
  }
}
