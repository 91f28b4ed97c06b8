/**
 * Trust levels: a thread shares the host's process (its memory, its environment
 * block, the inspector), so a plugin that runs as a thread can read every secret the host
 * holds. `doctor` warns when a plugin that is neither bundled with Patchbay nor listed in
 * connectors.json's "trust" runs as a thread next to instances holding secrets, and says
 * which line to add (or to sandbox it instead). "isolation": "host" goes further (the plugin
 * runs on the host's own thread), so only the plugins Patchbay ships may ask for it
 * (discovery/host-isolation.ts). See docs/isolation.md.
 */
import type { ResolvedConfig } from "../config/load.js";
import type { Discovery } from "../discovery/scan.js";
import { operatorStrings } from "../secrets.js";

export interface TrustWarning {
  instance: string;
  plugin: string;
  /** Instances whose config holds a ${VAR} value (a secret) that this thread could read. */
  neighbours: string[];
  message: string;
}

export function trustWarnings(config: ResolvedConfig, discovery: Discovery): TrustWarning[] {
  const secrets = new Set(config.secrets);
  const holders = config.instances
    .filter((i) =>
      [...operatorStrings(i.config)].some((v) => secrets.has(v) || config.secrets.some((s) => v.includes(s))),
    )
    .map((i) => i.id);
  if (holders.length === 0) return [];
  const trusted = new Set(config.trust);
  const out: TrustWarning[] = [];
  for (const inst of config.instances) {
    if (inst.isolation !== "thread" || trusted.has(inst.plugin)) continue;
    const plugin = discovery.plugins.get(inst.plugin);
    if (!plugin || plugin.bundled) continue;
    const neighbours = holders.filter((h) => h !== inst.id);
    if (neighbours.length === 0) continue;
    out.push({
      instance: inst.id,
      plugin: inst.plugin,
      neighbours,
      message: `${inst.id} runs plugin "${inst.plugin}" (not bundled, not in "trust") as a thread inside the host, next to instances holding secrets (${neighbours.join(", ")}); a thread can read them. If you trust it, add "trust": ["${inst.plugin}"] to connectors.json; otherwise set "isolation": "sandbox" on ${inst.id}.`,
    });
  }
  return out;
}
