/**
 * Live health while `patchbay serve` runs: every instance's health_check again every
 * health_interval_ms (its own, else defaults.health_interval_ms), through the same check as the
 * boot pass. An instance that turns unhealthy is marked so (failed if required, degraded if not)
 * and reported to `onChange`; it is never a reason to stop the server. When it answers true
 * again it is ready again. Checks of one instance never overlap: the next is scheduled when the
 * previous one settled. Entries are looked up by id on every tick, so an instance swapped by a
 * hot reload is checked as its new self.
 */
import { checkHealth, type Invoke } from "./health.js";
import type { InstanceEntry } from "./registry.js";

export interface HealthChange {
  id: string;
  healthy: boolean;
  entry: InstanceEntry;
}

export interface LiveHealthOptions {
  entries: () => InstanceEntry[];
  invoke: Invoke;
  onChange: (change: HealthChange) => void;
  /** After every completed check (healthy or not): the gateway refreshes its tool list then. */
  onChecked?: (entry: InstanceEntry) => void;
}

/** Whether the entry can serve calls: started, and its last check (boot or live) passed. */
export function isHealthy(e: InstanceEntry): boolean {
  return e.worker !== null && (e.state === "ready" || e.state === "degraded") && e.error === null;
}

export class LiveHealth {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly opts: LiveHealthOptions) {}

  /** Starts a timer for every checkable instance not yet watched (call again after a reload). */
  sync(): void {
    if (this.stopped) return;
    const ids = new Set<string>();
    for (const e of this.opts.entries()) {
      if (!e.planned) continue;
      ids.add(e.id);
      if (!this.timers.has(e.id)) this.schedule(e.id, e.planned.healthIntervalMs);
    }
    for (const [id, t] of this.timers) if (!ids.has(id)) clearTimeout(t), this.timers.delete(id);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Runs one instance's check now (tests and reloads use it; the timer keeps its rhythm). */
  async checkNow(id: string): Promise<void> {
    const entry = this.opts.entries().find((e) => e.id === id);
    if (!entry?.planned || !entry.worker) return;
    if (entry.worker.state === "stopped" || entry.worker.state === "stopping") return;
    // An open circuit stays failed until the host restarts: checking it would only fail again.
    if (entry.error?.code === "PB_ERR_CIRCUIT_OPEN") return;
    const before = isHealthy(entry);
    await checkHealth(entry, this.opts.invoke);
    entry.lastHealthAt = Date.now();
    if (entry.error && !entry.required) entry.state = "degraded";
    const after = isHealthy(entry);
    if (this.stopped) return;
    this.opts.onChecked?.(entry);
    if (before !== after) this.opts.onChange({ id, healthy: after, entry });
  }

  private schedule(id: string, ms: number): void {
    const timer = setTimeout(() => {
      void this.checkNow(id)
        .catch(() => undefined)
        .finally(() => {
          if (this.stopped || !this.timers.has(id)) return;
          const entry = this.opts.entries().find((e) => e.id === id);
          if (entry?.planned) this.schedule(id, entry.planned.healthIntervalMs);
          else this.timers.delete(id);
        });
    }, ms);
    timer.unref();
    this.timers.set(id, timer);
  }
}
