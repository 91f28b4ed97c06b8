/**
 * What an instance offers, as far as its plugin.json and connectors.json say: kind,
 * plugin@version, callable methods, declared optional methods, memory modes and filters, and the
 * MCP allow-list. Shared by `patchbay list` (nothing started) and host.capabilities() (which adds
 * health and what the live instance reports), so the two can never disagree.
 */
import { callableMethods, type Kind } from "../contract/kinds.js";
import { declaredFilters, declaredModes } from "../contract/manifest.js";
import type { DiscoveredPlugin } from "./scan.js";

export interface StaticCapabilities {
  kind: Kind;
  /** "sqlite-memory@1.0.0" */
  plugin: string;
  /** Every method a caller may use: the kind's required methods plus the declared optional ones. */
  methods: string[];
  /** The optional methods plugin.json declares ("capabilities"). */
  optional: string[];
  /** memory-store only: the query modes and extra filter keys the host lets through. */
  modes?: string[];
  filters?: string[];
  /** mcp only: null = every tool, [] = none. */
  allowedTools?: string[] | null;
}

export function describePlugin(plugin: DiscoveredPlugin, allowedTools: readonly string[] | null): StaticCapabilities {
  const { manifest } = plugin;
  const out: StaticCapabilities = {
    kind: plugin.kind,
    plugin: `${plugin.name}@${plugin.version}`,
    methods: [...callableMethods(plugin.kind, manifest.capabilities)].filter((m) => m !== "health_check"),
    optional: [...manifest.capabilities],
  };
  if (plugin.kind === "memory-store") {
    out.modes = declaredModes(manifest);
    out.filters = declaredFilters(manifest);
  }
  if (plugin.kind === "mcp") out.allowedTools = allowedTools ? [...allowedTools] : null;
  return out;
}
