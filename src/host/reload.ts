/**
 * Hot reload (`serve --watch`): re-reads connectors.json and the plugin folders and
 * restarts only the instances whose resolved entry or plugin files changed. A replacement boots
 * and passes health_check before it takes over; calls in flight on the old worker finish
 * (bounded by its timeout) before that worker stops. A broken edit (bad JSON, a schema error, a
 * plugin that fails to load or is unhealthy) changes nothing: the old instance keeps serving and
 * the failure is reported as PB_ERR_RELOAD_FAILED with the cause's own code.
 */
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pbError, toWire, type PatchbayError, type WireError } from "../errors.js";
import { loadConfig, type ResolvedConfig, type ResolvedInstance } from "../config/load.js";
import { scanPlugins } from "../discovery/scan.js";
import { planInstances, type PlannedInstance } from "../discovery/plan.js";
import { checkHealth } from "../registry/health.js";
import type { InstanceEntry } from "../registry/registry.js";
import { bundledPluginsDir } from "../paths.js";
import { startInstance } from "./start.js";
import { WorkerGroups } from "../spawn/group-runtime.js";
import type { Host } from "./api.js";

export interface ReloadOutcome {
  /** Instances restarted on a new worker. */
  restarted: string[];
  added: string[];
  /**
   * New optional instances added although their check failed, as boot adds them: degraded, their
   * tools absent until a live check passes. (Also in `added`.)
   */
  degraded: WireError[];
  removed: string[];
  /** One PB_ERR_RELOAD_FAILED per instance (or for the whole file) that kept its old state. */
  failures: WireError[];
  /** The config now in force (the new one unless the file itself was broken). */
  config: ResolvedConfig | null;
}

/** What decides whether an instance must restart: its resolved entry and its plugin's files. */
function fingerprint(inst: ResolvedInstance, planned: PlannedInstance | null): string {
  const { pointer: _pointer, ...rest } = inst;
  return createHash("sha256")
    .update(JSON.stringify(rest))
    .update(planned ? folderStamp(planned.pluginInfo.dir) : "no-plugin")
    .digest("hex");
}

/** Paths, sizes and mtimes of a plugin folder's files (dependencies and VCS folders excluded). */
function folderStamp(dir: string): string {
  const parts: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      if (n === "node_modules" || n === ".git") continue;
      const p = path.join(d, n);
      try {
        const st = statSync(p);
        if (st.isDirectory()) walk(p);
        else parts.push(`${path.relative(dir, p)}:${st.size}:${st.mtimeMs}`);
      } catch {
        /* vanished while walking: the next event reloads again */
      }
    }
  };
  walk(dir);
  return parts.join("\n");
}

export class Reloader {
  private readonly stamps = new Map<string, string>();
  private config: ResolvedConfig;

  constructor(
    private readonly host: Host,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {
    if (!host.config?.file) throw pbError("PB_ERR_USAGE", "serve --watch needs connectors.json as a file.", {});
    this.config = host.config;
    const discovery = scanPlugins(this.config.pluginDirs, bundledPluginsDir());
    const plan = planInstances(this.config, discovery);
    for (const inst of this.config.instances)
      this.stamps.set(inst.id, fingerprint(inst, plan.instances.find((p) => p.id === inst.id) ?? null));
  }

  /** The folders to watch: connectors.json's own and every plugin folder it scans. */
  watchedPaths(): { configFile: string; pluginDirs: string[] } {
    return { configFile: this.config.file!, pluginDirs: this.config.pluginDirs };
  }

  async reload(): Promise<ReloadOutcome> {
    const out: ReloadOutcome = { restarted: [], added: [], degraded: [], removed: [], failures: [], config: null };
    let next: ResolvedConfig;
    try {
      next = await loadConfig({ config: this.config.file!, env: this.env });
    } catch (err) {
      out.failures.push(failure(null, err, "connectors.json"));
      return out;
    }
    out.config = next;
    this.host.scrubber.addAll(next.secrets);
    const discovery = scanPlugins(next.pluginDirs, bundledPluginsDir());
    const plan = planInstances(next, discovery);
    const registry = this.host.registryForReload;
    await Promise.all(
      next.instances.map(async (inst) => {
        const planned = plan.instances.find((p) => p.id === inst.id) ?? null;
        const stamp = fingerprint(inst, planned);
        const old = registry.all().find((e) => e.id === inst.id) ?? null;
        if (old && this.stamps.get(inst.id) === stamp) return;
        const planError =
          plan.errors.find((e) => e.data.instance === inst.id) ??
          discovery.errors.find((e) => e.data.plugin === inst.plugin) ??
          null;
        // An instance sharing a worker group cannot be swapped alone: its worker is the group's.
        if (planned?.worker || old?.planned?.worker) {
          out.failures.push(
            failure(
              inst.id,
              pbError(
                "PB_ERR_RELOAD_FAILED",
                `${inst.id} runs in worker group "${planned?.worker ?? old?.planned?.worker}", which hot reload does not restart; restart \`patchbay serve\` to apply this change.`,
                { instance: inst.id },
              ),
              inst.id,
              old !== null,
            ),
          );
          return;
        }
        if (!planned || planError) {
          out.failures.push(
            failure(
              inst.id,
              planError ??
                pbError("PB_ERR_CONFIG_UNKNOWN_PLUGIN", `${inst.id}: plugin "${inst.plugin}" was not found.`, {
                  instance: inst.id,
                }),
              inst.id,
              old !== null,
            ),
          );
          return;
        }
        const entry: InstanceEntry = {
          id: inst.id,
          section: inst.section,
          name: inst.name,
          required: inst.required,
          plugin: inst.plugin,
          isolation: inst.isolation,
          version: planned.pluginInfo.version,
          planned,
          worker: null,
          target: null,
          state: "stopped",
          healthMs: null,
          error: null,
          restarts: old ? (old.restarts ?? 0) + 1 : 0,
        };
        await startInstance(entry, this.host, registry, next, { env: this.env }, new WorkerGroups());
        const started = entry.error === null;
        if (started) await checkHealth(entry, (e, m, a, o) => this.host.invoke(e, m, a, o));
        // A new optional instance that started but failed its check joins as boot would have added
        // it: degraded, checked again by live health, its tools there once it passes. A running
        // instance is never swapped for an unhealthy one, and one that did not start never heals.
        const degraded = started && entry.error !== null && !old && !inst.required;
        if (entry.error && !degraded) {
          await entry.worker?.stop();
          out.failures.push(failure(inst.id, entry.error, inst.id, old !== null));
          return;
        }
        if (degraded) {
          entry.state = "degraded";
          out.degraded.push(entry.error!);
        }
        entry.lastHealthAt = Date.now();
        this.stamps.set(inst.id, stamp);
        const replaced = registry.replace(entry);
        (old ? out.restarted : out.added).push(inst.id);
        if (replaced) await drainAndStop(replaced);
      }),
    );
    for (const e of registry.all()) {
      if (next.instances.some((i) => i.id === e.id)) continue;
      registry.remove(e.id);
      this.stamps.delete(e.id);
      out.removed.push(e.id);
      await drainAndStop(e);
    }
    if (out.failures.length === 0) this.config = next;
    return out;
  }
}

/** Lets the calls in flight on `old` finish (at most its call timeout), then stops its worker. */
async function drainAndStop(old: InstanceEntry): Promise<void> {
  const until = Date.now() + (old.planned?.timeoutMs ?? 30_000);
  while ((old.inflight ?? 0) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  await old.worker?.stop();
  old.state = "stopped";
}

/** `running`: the instance was serving before the change (and keeps doing so); false: it was new. */
function failure(instance: string | null, cause: unknown, what: string, running = instance !== null): WireError {
  const c = isWire(cause) ? cause : toWire(cause as PatchbayError);
  const outcome =
    instance === null ? "nothing changed" : running ? "the old instance keeps serving" : "it was not added";
  return toWire(
    pbError("PB_ERR_RELOAD_FAILED", `Reload of ${what} failed, ${outcome}: [${c.code}] ${c.message}`, {
      instance,
      cause: c.code,
    }),
  );
}

function isWire(v: unknown): v is WireError {
  return (
    !!v &&
    typeof v === "object" &&
    !(v instanceof Error) &&
    typeof (v as WireError).code === "string" &&
    typeof (v as WireError).message === "string"
  );
}
