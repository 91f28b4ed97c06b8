/**
 * The gateway-level expose is every client's ceiling. A client that names a contract method the
 * gateway does not expose would silently get nothing for it; serve refuses to start instead, naming
 * the client's JSON pointer. (An mcp connector's tool names and globs cannot be checked here: its
 * tools are the upstream's, and change while serving.)
 */
import { pbError, type PatchbayError } from "../../errors.js";
import type { ClientPolicySpec, ResolvedConfig } from "../../config/types.js";
import type { Kind } from "../../contract/kinds.js";
import type { Discovery } from "../../discovery/scan.js";
import { exposedMethods } from "../exposure.js";

export interface CeilingEntry {
  id: string;
  kind: Kind | null;
  capabilities: readonly string[];
}

export function clientCeilingErrors(
  entries: readonly CeilingEntry[],
  expose: Readonly<Record<string, boolean | readonly string[]>>,
  clients: readonly ClientPolicySpec[],
): PatchbayError[] {
  const errors: PatchbayError[] = [];
  for (const client of clients)
    for (const [instance, setting] of Object.entries(client.expose)) {
      const entry = entries.find((e) => e.id === instance);
      if (!entry?.kind || entry.kind === "mcp" || !Array.isArray(setting)) continue;
      const offered = exposedMethods({ id: entry.id, kind: entry.kind, capabilities: entry.capabilities }, expose);
      if (!Array.isArray(offered)) continue;
      const beyond = setting.filter((m) => !offered.includes(m));
      if (beyond.length === 0) continue;
      const pointer = `${client.pointer}/expose/${instance.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      errors.push(
        pbError(
          "PB_ERR_CONFIG_INVALID",
          `connectors.json ${pointer}: ${beyond.map((m) => JSON.stringify(m)).join(", ")} ${beyond.length === 1 ? "is" : "are"} not exposed by the gateway for ${instance} (gateway.expose offers: ${offered.join(", ") || "nothing"}); a client never gets more than the gateway exposes.`,
          { pointer, instance, client: client.id },
          "Add the method to gateway.expose for the instance too, or remove it from the client's expose.",
        ),
      );
    }
  return errors;
}

/**
 * The same check from the plugins' manifests, before anything starts: `patchbay client add` runs
 * it before writing, so the file it leaves is one serve starts with.
 */
export function configCeilingErrors(config: ResolvedConfig, discovery: Discovery): PatchbayError[] {
  const g = config.gateway;
  const entries = config.instances.map((i) => {
    const plugin = discovery.plugins.get(i.plugin);
    return { id: i.id, kind: plugin?.kind ?? null, capabilities: plugin?.manifest.capabilities ?? [] };
  });
  return clientCeilingErrors(entries, g.expose, [...g.clients, ...(g.oauth?.clients ?? [])]);
}
