/**
 * Joins the resolved connectors.json with the discovered plugins into a load plan: which plugin
 * each instance runs, what it may call. Every mismatch is collected with the instance's pointer.
 */
import { pbError, type PatchbayError } from "../errors.js";
import { KIND_OF_SECTION, SECTION_OF_KIND } from "../contract/kinds.js";
import { suggest } from "../contract/suggest.js";
import type { ResolvedConfig, ResolvedInstance } from "../config/load.js";
import type { DiscoveredPlugin, Discovery } from "./scan.js";
import { hostIsolationRefusal } from "./host-isolation.js";

export interface PlannedInstance extends ResolvedInstance {
  pluginInfo: DiscoveredPlugin;
}

export interface LoadPlan {
  instances: PlannedInstance[];
  /** Errors of instances that cannot be started (unknown plugin, wrong kind, bad grants). */
  errors: PatchbayError[];
}

export function planInstances(config: ResolvedConfig, discovery: Discovery): LoadPlan {
  const instances: PlannedInstance[] = [];
  const errors: PatchbayError[] = [];
  const known = new Set([...config.instances.map((i) => i.id), ...Object.keys(config.aliases)]);

  // One suggestion per (plugin name, kind), not per instance: 100,000 instances naming one
  // unknown plugin would otherwise run the Levenshtein search 100,000 times.
  const unknown = new Map<string, { sameKind: string[]; close: string | null }>();
  const unknownPlugin = (name: string, kind: string) => {
    const key = `${kind}\0${name}`;
    let found = unknown.get(key);
    if (!found) {
      const sameKind = [...discovery.plugins.values()].filter((p) => p.kind === kind).map((p) => p.name);
      found = { sameKind, close: suggest(name, sameKind) ?? suggest(name, [...discovery.plugins.keys()]) ?? null };
      unknown.set(key, found);
    }
    return found;
  };

  for (const inst of config.instances) {
    const where = { instance: inst.id, pointer: `${inst.pointer}/plugin`, file: config.file };
    const plugin = discovery.plugins.get(inst.plugin);
    const kind = KIND_OF_SECTION[inst.section];
    if (!plugin) {
      const { sameKind, close } = unknownPlugin(inst.plugin, kind);
      errors.push(
        pbError(
          "PB_ERR_CONFIG_UNKNOWN_PLUGIN",
          `${inst.id}: plugin "${inst.plugin}" was not found.${close ? ` Did you mean "${close}"?` : ""} Plugins of kind ${kind}: ${sameKind.join(", ") || "none"}.`,
          { ...where, plugin: inst.plugin, available: sameKind, ...(close ? { suggestion: close } : {}) },
        ),
      );
      continue;
    }
    if (plugin.kind !== kind) {
      const sameKind = [...discovery.plugins.values()].filter((p) => p.kind === kind).map((p) => p.name);
      errors.push(
        pbError(
          "PB_ERR_CONFIG_WRONG_KIND",
          `${inst.id}: plugin "${plugin.name}" is a ${plugin.kind} plugin (section ${SECTION_OF_KIND[plugin.kind]}), but ${inst.section} needs kind ${kind}. Plugins of kind ${kind}: ${sameKind.join(", ") || "none"}.`,
          { ...where, plugin: plugin.name, kind: plugin.kind, expected: kind, available: sameKind },
        ),
      );
      continue;
    }
    const grantProblems = inst.grants.flatMap((g, i) => {
      const pointer = `${inst.pointer}/grants/${i}`;
      // "section/*" in requires names any instance of that section (mcp-remote's sampling model is
      // the operator's choice).
      if (
        !plugin.manifest.requires.some(
          (r) => r === g || (r.endsWith("/*") && g.startsWith(r.slice(0, -1)) && !g.slice(r.length - 1).includes("/")),
        )
      )
        return [
          `${pointer}: "${g}" is not in plugin "${plugin.name}"'s "requires" (${plugin.manifest.requires.join(", ") || "none"})`,
        ];
      if (!known.has(g)) return [`${pointer}: "${g}" is not an instance in connectors.json`];
      if (g === inst.id) return [`${pointer}: an instance cannot be granted to itself`];
      return [];
    });
    if (grantProblems.length > 0) {
      errors.push(
        pbError("PB_ERR_CONFIG_INVALID", `${inst.id}: bad grants:\n  ${grantProblems.join("\n  ")}`, {
          ...where,
          pointer: `${inst.pointer}/grants`,
        }),
      );
      continue;
    }
    const refused =
      inst.isolation === "host"
        ? hostIsolationRefusal({ instance: inst.id, pluginName: plugin.name, pluginDir: plugin.dir })
        : null;
    if (refused) {
      errors.push(refused);
      continue;
    }
    instances.push({ ...inst, pluginInfo: plugin });
  }
  return { instances, errors };
}
