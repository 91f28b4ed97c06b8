/**
 * Config and plugin discovery without starting anything: what `patchbay list` shows and what
 * tooling needs to know about a connectors.json.
 */
import { loadConfig, type LoadConfigOptions, type ResolvedConfig } from "../config/load.js";
import { scanPlugins, type DiscoveredPlugin, type Discovery } from "../discovery/scan.js";
import { planInstances, type LoadPlan } from "../discovery/plan.js";
import { bundledPluginsDir } from "../paths.js";
import { Scrubber } from "../secrets.js";
import { toWire, type WireError } from "../errors.js";
import { describeUnstarted, type InstanceCapabilities } from "../registry/capabilities.js";
import { blockedBy } from "../config/scope.js";

export interface Inspection {
  config: ResolvedConfig;
  discovery: Discovery;
  plan: LoadPlan;
  scrubber: Scrubber;
}

export async function inspect(opts: LoadConfigOptions): Promise<Inspection> {
  // Scoped: one instance's unset ${VAR} or bad key is that instance's error in the listing, not the listing's.
  const config = await loadConfig({ ...opts, scoped: true });
  const scrubber = new Scrubber();
  scrubber.addAll(config.secrets);
  const discovery = scanPlugins(config.pluginDirs, bundledPluginsDir());
  return { config, discovery, plan: planInstances(config, discovery), scrubber };
}

export interface PluginListing {
  name: string;
  kind: string;
  version: string;
  folder: string;
  bundled: boolean;
  /** The bundled plugin's folder this one hides. */
  shadows: string | null;
  description: string | null;
  capabilities: string[];
  requires: string[];
  permissions: { env: string[]; net: string[]; fs: string[] };
}

export interface InstanceListing {
  id: string;
  plugin: string;
  required: boolean;
  aliases: string[];
  allowed_tools: string[] | null;
  error: WireError | null;
  /** What host.capabilities() reports, from the declarations alone (state "not-started", no tools yet). */
  capabilities: InstanceCapabilities;
}

export function listing(inspection: Inspection): {
  configFile: string | null;
  plugins: PluginListing[];
  instances: InstanceListing[];
  problems: WireError[];
} {
  const { config, discovery, plan, scrubber } = inspection;
  const plugins = [...discovery.plugins.values()].sort((a, b) => a.name.localeCompare(b.name)).map(pluginListing);
  const errors = new Map<unknown, (typeof plan.errors)[number]>();
  for (const e of plan.errors) if (!errors.has(e.data.instance)) errors.set(e.data.instance, e);
  const aliasesOf = new Map<string, string[]>();
  for (const [from, to] of Object.entries(config.aliases)) aliasesOf.set(to, [...(aliasesOf.get(to) ?? []), from]);
  const plannedById = new Map(plan.instances.map((p) => [p.id, p]));
  const instances = config.instances.map((i): InstanceListing => {
    const err = errors.get(i.id);
    const aliases = aliasesOf.get(i.id) ?? [];
    const error = blockedBy(i.id, config) ?? (err ? toWire(err) : null);
    const planned = plannedById.get(i.id);
    return {
      id: i.id,
      plugin: i.plugin,
      required: i.required,
      allowed_tools: i.allowedTools,
      aliases,
      error,
      capabilities: describeUnstarted(i, planned?.pluginInfo ?? null, aliases, error),
    };
  });
  return scrubber.scrubValue({ configFile: config.file, plugins, instances, problems: discovery.errors.map(toWire) });
}

function pluginListing(p: DiscoveredPlugin): PluginListing {
  return {
    name: p.name,
    kind: p.kind,
    version: p.version,
    folder: p.dir,
    bundled: p.bundled,
    shadows: p.shadows,
    description: p.manifest.description ?? null,
    capabilities: p.manifest.capabilities,
    requires: p.manifest.requires,
    permissions: p.manifest.permissions,
  };
}
