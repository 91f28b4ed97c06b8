/**
 * The order and pace of a boot's starts: two per core at once, each lane taking the next instance
 * as its last one has started, MCP connectors first.
 */
import os from "node:os";
import type { InstanceEntry } from "../registry/registry.js";

/**
 * How many instances a boot starts at once: two per core. A thread's start is mostly CPU, but
 * it waits between its parts (its thread created on the host, tinypool's ready and the task's
 * dispatch, the ready message, the health check), and with one start per core a core idled in
 * those waits. Measured, 20 bench-echo instances on 2 cores against 20 bare workers (same-run
 * A/B, 5x5 rounds, twice): one per core 1.54× and 1.55×, two per core 1.47× and 1.45×.
 */
export function startLanes(): number {
  return 2 * os.availableParallelism();
}

/**
 * MCP connectors start first, the rest in config order. Starts are bounded by the cores, so an
 * instance late in the list waits for earlier ones; an MCP connector's health check waits on its
 * server (a child process to boot, or a remote to dial), which then boots while the later,
 * quicker instances start, instead of after them. Measured on the bundled connectors.json: the
 * demo server's connector was the last ready, and started third.
 */
export function startOrder(entries: InstanceEntry[]): InstanceEntry[] {
  const first = (e: InstanceEntry) => (e.section === "mcpConnectors" ? 0 : 1);
  return [...entries].sort((a, b) => first(a) - first(b));
}

/** Runs `fn` over `items` with at most `limit` running at once, each lane taking the next item. */
export async function mapBounded<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      await fn(item);
    }
  };
  const lanes = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
}
