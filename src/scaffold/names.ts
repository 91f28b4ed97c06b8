/**
 * The name `patchbay plugin new` accepts. It becomes a folder, plugin.json's "name" and the
 * suggested connectors.json instance, so it must be all three on every platform: stricter than
 * the host's portable names (no capitals, because "GitHub" and "github" are one folder on macOS
 * and Windows but two plugins to the host).
 */
import { pbError } from "../errors.js";
import { portableNameProblem } from "../contract/names.js";

const ID = /^[a-z][a-z0-9._-]*$/;
const MAX_PLUGIN_NAME = 64;

/** Why `name` cannot name a new plugin, or null when it can. */
export function pluginNameProblem(name: string): string | null {
  if (name.length === 0) return "is empty";
  if (/[\\/]/.test(name)) return "contains a path separator (pass the parent folder with --dir instead)";
  if (name.length > MAX_PLUGIN_NAME) return `is longer than ${MAX_PLUGIN_NAME} characters`;
  if (!ID.test(name))
    return "must start with a lower-case letter and use only lower-case letters, digits, '.', '_' and '-'";
  if (/[._-]$/.test(name)) return "must end with a letter or digit";
  if (/[._-]{2}/.test(name)) return "must not contain two punctuation characters in a row";
  // The host's own rule (reserved device names and the like) applies on top.
  return portableNameProblem(name);
}

/** A valid name close to what the user typed ("GitHub Issues" → "github-issues"), or null. */
export function suggestPluginName(name: string): string | null {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/[._-]{2,}/g, "-")
    .replace(/^[^a-z]+/, "")
    .replace(/[._-]+$/, "")
    .slice(0, MAX_PLUGIN_NAME)
    .replace(/[._-]+$/, "");
  return slug && slug !== name && pluginNameProblem(slug) === null ? slug : null;
}

/** Throws PB_ERR_SCAFFOLD_NAME, with a suggestion when one exists. */
export function assertPluginName(name: string): void {
  const problem = pluginNameProblem(name);
  if (!problem) return;
  const suggestion = suggestPluginName(name);
  throw pbError(
    "PB_ERR_SCAFFOLD_NAME",
    `Plugin name ${JSON.stringify(name)} ${problem}.${suggestion ? ` Did you mean "${suggestion}"?` : ""}`,
    { name, problem, suggestion },
  );
}
