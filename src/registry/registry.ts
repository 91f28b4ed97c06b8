/**
 * What is loaded: one entry per configured instance with its worker, its guard target and its
 * health, and the aliases that point at entries. Lookups follow aliases.
 */
import { pbError } from "../errors.js";
import type { WireError } from "../errors.js";
import type { Section } from "../contract/kinds.js";
import type { PlannedInstance } from "../discovery/plan.js";
import type { GuardTarget } from "../contract/target.js";
import type { InstanceWorker } from "../spawn/instance-worker.js";

export type InstanceState = "ready" | "degraded" | "failed" | "stopped";

export interface InstanceEntry {
  id: string;
  section: Section;
  name: string;
  required: boolean;
  plugin: string;
  version: string;
  /** As configured ("thread" unless the instance says "process"). */
  isolation: PlannedInstance["isolation"];
  planned: PlannedInstance | null;
  worker: InstanceWorker | null;
  target: GuardTarget | null;
  state: InstanceState;
  healthMs: number | null;
  error: WireError | null;
  /** The plugin's latest warn-or-worse log line: why a health_check said false, in its own words. */
  lastWarning?: string;
  /** serve: when live health last checked it (ms since epoch). */
  lastHealthAt?: number;
  /** serve: worker restarts after crashes plus hot-reload swaps. */
  restarts?: number;
  /** An mcp plugin's running count of what its upstream server asked (log data `client_requests`). */
  clientRequests?: { served: number; refused: number };
  /** serve: calls crossing to this entry's worker right now; a hot reload drains them before stopping it. */
  inflight?: number;
}

export class Registry {
  private readonly entries = new Map<string, InstanceEntry>();

  constructor(private readonly aliases: Readonly<Record<string, string>>) {}

  add(entry: InstanceEntry): void {
    this.entries.set(entry.id, entry);
  }

  /**
   * Hot reload: the entry for `entry.id` becomes `entry`; the old one is returned so its worker can
   * be drained and stopped.
   */
  replace(entry: InstanceEntry): InstanceEntry | null {
    const old = this.entries.get(entry.id) ?? null;
    this.entries.set(entry.id, entry);
    return old;
  }

  /** Hot reload: an instance deleted from connectors.json. */
  remove(id: string): void {
    this.entries.delete(id);
  }

  all(): InstanceEntry[] {
    return [...this.entries.values()];
  }

  aliasesOf(id: string): string[] {
    return Object.entries(this.aliases)
      .filter(([, to]) => to === id)
      .map(([from]) => from);
  }

  /** Finds "section/name" (following aliases) or throws PB_ERR_INSTANCE_NOT_FOUND listing what exists. */
  get(id: string): InstanceEntry {
    const resolved = this.aliases[id] ?? id;
    const entry = this.entries.get(resolved);
    if (entry) return entry;
    const section = id.split("/")[0];
    const known = [...this.entries.keys(), ...Object.keys(this.aliases)].filter((k) => k.startsWith(section + "/"));
    throw pbError(
      "PB_ERR_INSTANCE_NOT_FOUND",
      `No instance "${id}". ${known.length ? `Instances in ${section}: ${known.join(", ")}.` : `Known instances: ${[...this.entries.keys()].join(", ") || "none"}.`}`,
      { instance: id, known },
    );
  }
}
