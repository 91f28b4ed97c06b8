/**
 * What the call guard holds an instance to: its kind, what its plugin declares, and what the
 * operator configured. A leaf of types only, so the registry can store a target on each entry
 * and the guard (a later stage) can check calls against it without the two importing each other.
 */
import type { Kind } from "./kinds.js";

/** The part of a target the kind's contract rules read (guard/contract-checks.ts). */
export interface ContractTarget {
  instance: string;
  kind: Kind;
  /** memory-store: the query modes and extra filter keys its plugin.json declares. */
  modes?: readonly string[];
  filters?: readonly string[];
  /** local-model: the dimension of the first embedding the instance returned; later ones must match. */
  embedDim?: number | null;
}

export interface GuardTarget extends ContractTarget {
  instance: string;
  kind: Kind;
  capabilities: readonly string[];
  /** null = every tool; [] = none. */
  allowedTools: readonly string[] | null;
  /**
   * mcp: the allowed_tools names the last list_tools did not offer (a typo allows nothing, silently),
   * each with the offered name it most likely meant; set by the guard as it filters the list.
   */
  allowedNotOffered?: readonly { name: string; suggestion: string | null }[];
  identity: Readonly<Record<string, unknown>> | null;
}

/** The DeliveryMeta fields only the host sets; a broadcast passes the one it shares across connectors. */
export interface HostMeta {
  dispatch_id: string;
  sent_at: number;
}
