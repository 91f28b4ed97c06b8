/**
 * The composition root. createHost() = load config → discover plugins → plan → start every
 * worker (in parallel, two per core: start-lanes.ts) → health_check each under its timeout → report.
 * A required failure stops every started worker and throws one error listing every failure.
 */
import path from "node:path";
import { fromWire, type PatchbayError, pbError, toWire } from "../errors.js";
import { loadConfig, type ResolvedConfig } from "../config/load.js";
import type { ResolvedInstance } from "../config/types.js";
import { blockedBy, instanceById } from "../config/scope.js";
import { scanPlugins, type Discovery } from "../discovery/scan.js";
import { planInstances, type PlannedInstance } from "../discovery/plan.js";
import { WorkerGroups } from "../spawn/group-runtime.js";
import { Registry, type InstanceEntry } from "../registry/registry.js";
import { mapBounded, startLanes, startOrder } from "./start-lanes.js";
import { runHealthPass, type Invoke } from "../registry/health.js";
import { Host } from "./api.js";
import { bootError, bootFailure } from "./boot-failure.js";
import { startInstance, workerEnvFor } from "./start.js";
import { releaseWarmThreads } from "../spawn/warm-threads.js";
import { createLogger } from "../log.js";
import { Scrubber } from "../secrets.js";
import { bundledPluginsDir } from "../paths.js";
import type { CreateHostOptions } from "./options.js";

export { bootFailure } from "./boot-failure.js";

export type { CreateHostOptions };

export async function createHost(opts: CreateHostOptions = {}): Promise<Host> {
  const scrubber = new Scrubber();
  const logger = createLogger({
    level: opts.logLevel,
    scrubber,
    destination: opts.logDestination,
    pretty: opts.prettyLogs,
  });
  const config = await loadConfig({
    config: opts.config,
    dir: opts.dir,
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    scoped: true,
  });
  // Names that say who failed are never censored, whatever a secret's value; a plugin name that
  // itself came from a ${VAR} is that variable's value, and is censored like any other.
  const secret = new Set(config.secrets);
  scrubber.protect(
    config.instances.flatMap((i) => [i.id, i.section, i.name, ...(secret.has(i.plugin) ? [] : [i.plugin])]),
  );
  scrubber.addAll(config.secrets);

  const discovery = scanPlugins(config.pluginDirs, bundledPluginsDir());
  const plan = planInstances(config, discovery);
  const { fatal, warnings, byPlugin } = sortDiscoveryErrors(discovery, config);
  if (fatal.length > 0 && !opts.collect) throw bootError(fatal.map(toWire), scrubber);

  if (opts.only) assertKnownInstances(opts.only, config);
  const registry = new Registry(config.aliases);
  const wanted = opts.only ? closure(opts.only, config) : null;
  // By id, not a search per instance: a file of 100,000 instances must answer in seconds.
  const index: PlanIndex = {
    plannedById: new Map(plan.instances.map((p) => [p.id, p])),
    errorById: firstById(plan.errors),
    discovery,
  };
  for (const inst of config.instances) {
    if (!wanted || wanted.has(inst.id)) registry.add(plannedEntry(inst, index, byPlugin, config));
  }

  const host = new Host(registry, scrubber, logger, config.file, fatal.map(toWire), warnings.map(toWire), config);
  opts.onCreated?.(host);
  await startAndCheck(host, registry, config, opts);

  for (const e of registry.all()) if (e.error && !e.required) e.state = "degraded";
  const failure = bootFailure(host.report());
  if (failure && !opts.collect) {
    await host.close();
    throw failure;
  }
  for (const e of registry.all()) {
    const line = e.error ? `${e.id} ${e.state}: ${e.error.message}` : `${e.id} ${e.state}`;
    logger.info({ instance: e.id, state: e.state, health_ms: e.healthMs }, line);
  }
  return host;
}

/** `only` is checked against the whole file: the registry will hold only what `only` boots. */
function assertKnownInstances(only: string[], config: ResolvedConfig): void {
  const all = [...config.instances.map((i) => i.id), ...Object.keys(config.aliases)];
  for (const id of only) {
    if (all.includes(id)) continue;
    const section = id.split("/")[0];
    const known = all.filter((k) => k.startsWith(`${section}/`));
    const listed = known.length
      ? `Instances in ${section}: ${known.join(", ")}.`
      : `Instances: ${config.instances.map((i) => i.id).join(", ") || "none"}.`;
    throw pbError("PB_ERR_INSTANCE_NOT_FOUND", `No instance "${id}" in ${config.file ?? "the config"}. ${listed}`, {
      instance: id,
      known,
      file: config.file,
    });
  }
}

/** One instance's registry entry before anything starts: its plan, or the reason it cannot start. */
function plannedEntry(
  inst: ResolvedInstance,
  plan: PlanIndex,
  byPlugin: Map<string, PatchbayError>,
  config: ResolvedConfig,
): InstanceEntry {
  const planned = plan.plannedById.get(inst.id) ?? null;
  const planError = instanceProblem(inst, plan, byPlugin, config);
  return {
    id: inst.id,
    section: inst.section,
    name: inst.name,
    required: inst.required,
    plugin: inst.plugin,
    isolation: inst.isolation,
    version: planned?.pluginInfo.version ?? plan.discovery.plugins.get(inst.plugin)?.version ?? "?",
    planned: planError ? null : planned,
    worker: null,
    target: null,
    state: planError ? "failed" : "stopped",
    healthMs: null,
    error: planError ? toWire(planError) : null,
  };
}

/**
 * Its own config problem first (it is a stand-in in the plan); then a plugin that failed to
 * load, which explains an instance's "unknown plugin" better than the plan can.
 */
function instanceProblem(
  inst: ResolvedInstance,
  plan: PlanIndex,
  byPlugin: Map<string, PatchbayError>,
  config: ResolvedConfig,
): PatchbayError | null {
  const blocked = blockedBy(inst.id, config);
  if (blocked) return fromWire(blocked);
  const loadError = byPlugin.get(inst.plugin);
  if (loadError) {
    return pbError(
      loadError.code,
      `${inst.id}: ${loadError.message}`,
      { ...loadError.data, instance: inst.id },
      loadError.hint,
    );
  }
  return plan.errorById.get(inst.id) ?? null;
}

/** The plan, looked up by instance id. */
interface PlanIndex {
  plannedById: Map<string, PlannedInstance>;
  errorById: Map<string, PatchbayError>;
  /** What was found of each plugin: a row whose plan failed still shows its plugin's version. */
  discovery: Discovery;
}

/** Each instance's first plan error. */
function firstById(errors: readonly PatchbayError[]): Map<string, PatchbayError> {
  const out = new Map<string, PatchbayError>();
  for (const e of errors)
    if (typeof e.data.instance === "string" && !out.has(e.data.instance)) out.set(e.data.instance, e);
  return out;
}

/**
 * Starts every planned instance (two per core at once: startLanes) and health-checks each as
 * soon as it and every instance it is granted have started, not after the last start: a slow
 * substrate (an MCP server's child process) then boots while the other workers still start.
 */
async function startAndCheck(
  host: Host,
  registry: Registry,
  config: ResolvedConfig,
  opts: CreateHostOptions,
): Promise<void> {
  const toStart = startOrder(registry.all().filter((e) => e.planned));
  const groups = planGroups(toStart, opts.env ?? process.env);
  const progress = (e: InstanceEntry): void => {
    const state = e.error && !e.required ? "degraded" : e.state;
    opts.onProgress?.({ id: e.id, state, healthMs: e.healthMs, error: e.error });
  };
  const invoke: Invoke = (e, m, a, o) => host.invoke(e, m, a, o);
  const started = new Map(toStart.map((e) => [e.id, deferred()]));
  const checks: Promise<void>[] = [];
  await mapBounded(toStart, startLanes(), async (entry) => {
    await startInstance(entry, host, registry, config, opts, groups);
    started.get(entry.id)?.resolve();
    if (entry.error) return progress(entry);
    if (!entry.worker) return;
    const grants = (entry.planned?.grants ?? []).map((g) => started.get(config.aliases[g] ?? g)?.promise);
    checks.push(Promise.all(grants).then(() => runHealthPass([entry], invoke, progress)));
  });
  void releaseWarmThreads(); // every instance has its thread: a warm one left over would only idle
  await Promise.all(checks);
}

/** Instances sharing a worker group: each member's env and memory cap are known before the first starts. */
function planGroups(toStart: InstanceEntry[], env: NodeJS.ProcessEnv): WorkerGroups {
  const groups = new WorkerGroups();
  for (const { planned } of toStart) {
    if (planned?.worker) groups.get(planned.worker).plan(workerEnvFor(planned, env), planned.maxMemoryMb);
  }
  return groups;
}

/** Duplicate plugin names are always fatal; other discovery errors only matter to instances that use the plugin. */
export function sortDiscoveryErrors(discovery: Discovery, config: ResolvedConfig) {
  const used = new Set(config.instances.map((i) => i.plugin));
  const fatal: PatchbayError[] = [];
  const warnings: PatchbayError[] = (config.pluginDirsDeclared ? discovery.missingDirs : []).map((d) =>
    pbError(
      "PB_ERR_CONFIG_INVALID",
      `Plugin folder ${d} does not exist.`,
      { folder: d, file: config.file },
      'Create the folder or remove it from "plugins" in connectors.json.',
    ),
  );
  const byPlugin = new Map<string, PatchbayError>();
  for (const err of discovery.errors) {
    const name =
      typeof err.data.plugin === "string"
        ? err.data.plugin
        : typeof err.data.file === "string"
          ? path.basename(path.dirname(err.data.file))
          : "";
    // A duplicate fails the boot; the instances of that name fail with it rather than start from one copy.
    if (err.code === "PB_ERR_PLUGIN_DUPLICATE") fatal.push(err);
    if (used.has(name)) byPlugin.set(name, err);
    else if (err.code !== "PB_ERR_PLUGIN_DUPLICATE") warnings.push(err);
  }
  return { fatal, warnings, byPlugin };
}

/** The instances `only` names (aliases followed) plus, transitively, what they are granted. */
function closure(only: string[], config: ResolvedConfig): Set<string> {
  const out = new Set<string>();
  const queue = only.map((id) => config.aliases[id] ?? id);
  while (queue.length > 0) {
    const id = queue.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    const inst = instanceById(config, id);
    for (const g of inst?.grants ?? []) queue.push(config.aliases[g] ?? g);
  }
  return out;
}

/** A promise and the function that resolves it, for "this instance has started". */
function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
