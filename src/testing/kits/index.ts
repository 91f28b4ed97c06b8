/**
 * One factory per kind: the kind's claims after the claims every kind shares. A new claim goes
 * in its kind's file; its name is what vitest and `patchbay plugin test` print.
 */
import type { Claim, KitKind } from "../types.js";
import { agentClaims } from "./agent.js";
import { commonClaims } from "./common.js";
import { localModelClaims } from "./local-model.js";
import { mcpClaims } from "./mcp.js";
import { memoryStoreClaims } from "./memory-store.js";
import { skillStoreClaims } from "./skill-store.js";

const BY_KIND: Readonly<Record<KitKind, readonly Claim[]>> = {
  "memory-store": memoryStoreClaims,
  "local-model": localModelClaims,
  mcp: mcpClaims,
  agent: agentClaims,
  "skill-store": skillStoreClaims,
};

export const memoryStoreKit = (): Claim[] => [...commonClaims, ...memoryStoreClaims];
export const localModelKit = (): Claim[] => [...commonClaims, ...localModelClaims];
export const mcpKit = (): Claim[] => [...commonClaims, ...mcpClaims];
export const agentKit = (): Claim[] => [...commonClaims, ...agentClaims];
export const skillStoreKit = (): Claim[] => [...commonClaims, ...skillStoreClaims];

/** The claims of `kind`'s kit, in the order they run. */
export function conformanceKit(kind: KitKind): Claim[] {
  const claims = BY_KIND[kind];
  if (!claims)
    throw new Error(
      `patchbay/testing: no conformance kit for kind "${String(kind)}" (kits: ${Object.keys(BY_KIND).join(", ")})`,
    );
  return [...commonClaims, ...claims];
}
