/**
 * The capabilities a new gateway client is offered. Once booted: what the live connectors can
 * answer. While booting (initialize is answered at once, before any instance is up): what the
 * exposed mcp connectors' plugins declare in their manifests.
 */
import type { Host } from "../host/api.js";
import { exposedMethods } from "./exposure.js";
import { PROMPT_METHODS, RESOURCE_METHODS, SUBSCRIBE_METHODS, type Passthrough } from "./resources.js";

export interface Offers {
  resources: boolean;
  subscribe: boolean;
  prompts: boolean;
}

/** `live`: the booted catalog's passthrough; null while booting. */
export function offersOf(
  host: Host,
  expose: Readonly<Record<string, boolean | readonly string[]>>,
  live: Passthrough | null,
): Offers {
  if (live)
    return {
      resources: live.resources.length > 0,
      subscribe: live.subscribable.length > 0,
      prompts: live.prompts.length > 0,
    };
  const out = { resources: false, subscribe: false, prompts: false };
  for (const e of host.registryForReload.all()) {
    const info = e.planned?.pluginInfo;
    if (info?.kind !== "mcp") continue;
    const methods = exposedMethods({ id: e.id, kind: "mcp", capabilities: info.manifest.capabilities }, expose);
    if (!Array.isArray(methods) || methods.length === 0) continue;
    const has = (ms: readonly string[]) => ms.every((m) => info.manifest.capabilities.includes(m));
    out.resources ||= has(RESOURCE_METHODS);
    out.subscribe ||= has(RESOURCE_METHODS) && has(SUBSCRIBE_METHODS);
    out.prompts ||= has(PROMPT_METHODS);
  }
  return out;
}

/** `notify`: false for a stateless request, which nothing can reach later (no list_changed). */
export function describeCapabilities(
  offers: Offers,
  opts: { notify: boolean } = { notify: true },
): { capabilities: Record<string, unknown> } {
  const listChanged = opts.notify;
  return {
    capabilities: {
      tools: { listChanged },
      logging: {},
      // Offered only when an exposed connector can answer them (resources.ts, subscriptions.ts);
      // listChanged: lists answered while booting are completed when the boot settles.
      ...(offers.resources ? { resources: offers.subscribe ? { subscribe: true, listChanged } : { listChanged } } : {}),
      ...(offers.prompts ? { prompts: { listChanged } } : {}),
    },
  };
}
