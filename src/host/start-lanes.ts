/**
 * The order and pace of a boot's starts: as many at once as there are cores, each lane taking the
 * next instance as its last one has started, MCP connectors first.
 */
import type { InstanceEntry } from "../registry/registry.js";

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
