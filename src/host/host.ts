/**
 * The composition root. createHost() = load config → discover plugins → plan → start every
 * worker (in parallel, bounded by the cores) → health_check each under its timeout → report.
 * A required failure stops every started worker and throws one error listing every failure.
 */
import os from "node:os";
import path from "node:path";
import type { DestinationStream } from "pino";
import { EXIT, fromWire, pbError, PatchbayError, toWire, type WireError } from "../errors.js";
import { METHODS } from "../contract/kinds.js";
import { declaredFilters, declaredModes } from "../contract/manifest.js";
import { loadConfig, type ResolvedConfig } from "../config/load.js";
import { blockedBy } from "../config/scope.js";
import { scanPlugins, type Discovery } from "../discovery/scan.js";
import { planInstances, type PlannedInstance } from "../discovery/plan.js";
import { InstanceWorker } from "../spawn/instance-worker.js";
import { WorkerGroups } from "../spawn/group-runtime.js";
import { expandFsGrants } from "../spawn/fs-grants.js";
import { Registry, type InstanceEntry } from "../registry/registry.js";
import { runHealthPass } from "../registry/health.js";
import { Host, type BootReport } from "./api.js";
import { createLogger } from "../log.js";
import { operatorStrings, Scrubber } from "../secrets.js";
import { authoringAliases, bundledPluginsDir, jitiCacheDir } from "../paths.js";

export interface CreateHostOptions {
  /** Path of connectors.json, or an already-parsed object. Default: PATCHBAY_CONFIG, then connectors.json from cwd upwards. */
  config?: string | Record<string, unknown>;
  /** Base folder for an object config. */
  dir?: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
  logLevel?: string;
  logDestination?: DestinationStream;
  /** Human-readable log lines instead of JSON. */
  prettyLogs?: boolean;
  /** Boot only these instances ("section/name") and the instances they are granted. */
  only?: string[];
  /** Never throw for failed instances: return the host with every failure in its report (doctor). */
  collect?: boolean;
  /** How long a cancelled call may run on before its worker is terminated. @default 2000 */
  graceMs?: number;
  /** @default 30000 */
  startTimeoutMs?: number;
  /** Hears each instance as its boot ends (ready, or failed to start or to pass its health check), in that order. */
  onProgress?: (instance: { id: string; state: string; healthMs: number | null; error: WireError | null }) => void;
}

export async function createHost(opts: CreateHostOptions = {}): Promise<Host> {
  const scrubber = new Scrubber();
  const logger = createLogger({ level: opts.logLevel, scrubber, destination: opts.logDestination, pretty: opts.prettyLogs });
  const env = opts.env ?? process.env;
  const config = await loadConfig({ config: opts.config, dir: opts.dir, cwd: opts.cwd, env, scoped: true });
  // Names that say who failed are never censored, whatever a secret's value (issue 8).
  scrubber.protect(config.instances.flatMap((i) => [i.id, i.section, i.name, i.plugin]));
  scrubber.addAll(config.secrets);

  const discovery = scanPlugins(config.pluginDirs, bundledPluginsDir());
  const plan = planInstances(config, discovery);
  const { fatal, warnings, byPlugin } = sortDiscoveryErrors(discovery, config);
  if (fatal.length > 0 && !opts.collect) throw bootError(fatal.map(toWire), scrubber);

  const registry = new Registry(config.aliases);
  const wanted = opts.only ? closure(opts.only, config) : null;
  for (const id of opts.only ?? []) {
    // Checked against the whole file: the registry will only hold what `only` boots.
    if (!config.instances.some((i) => i.id === id) && !Object.hasOwn(config.aliases, id)) {
      const section = id.split("/")[0];
      const known = [...config.instances.map((i) => i.id), ...Object.keys(config.aliases)].filter((k) => k.startsWith(section + "/"));
      throw pbError("PB_ERR_INSTANCE_NOT_FOUND", `No instance "${id}" in ${config.file ?? "the config"}. ${known.length ? `Instances in ${section}: ${known.join(", ")}.` : `Instances: ${config.instances.map((i) => i.id).join(", ") || "none"}.`}`, { instance: id, known, file: config.file });
    }
  }
  for (const inst of config.instances) {
    if (wanted && !wanted.has(inst.id)) continue;
    const planned = plan.instances.find((p) => p.id === inst.id) ?? null;
    // Its own config problem first (it is a stand-in in the plan); then a plugin that failed to
    // load, which explains an instance's "unknown plugin" better than the plan can.
    const loadError = byPlugin.get(inst.plugin);
    const blocked = blockedBy(inst.id, config);
    const planError = blocked
      ? fromWire(blocked)
      : loadError
        ? pbError(loadError.code, `${inst.id}: ${loadError.message}`, { ...loadError.data, instance: inst.id }, loadError.hint)
        : plan.errors.find((e) => e.data.instance === inst.id) ?? null;
    registry.add({
      id: inst.id, section: inst.section, name: inst.name, required: inst.required, plugin: inst.plugin, isolation: inst.isolation,
      version: planned?.pluginInfo.version ?? "?", planned: planError ? null : planned, worker: null, target: null,
      state: planError ? "failed" : "stopped", healthMs: null, error: planError ? toWire(planError) : null,
    });
  }

  const host = new Host(registry, scrubber, logger, config.file, fatal.map(toWire), warnings.map(toWire), config);
  const toStart = registry.all().filter((e) => e.planned);
  const progress = (e: InstanceEntry): void => opts.onProgress?.({ id: e.id, state: e.error && !e.required ? "degraded" : e.state, healthMs: e.healthMs, error: e.error });
  const groups = new WorkerGroups();
  for (const { planned } of toStart) if (planned?.worker) groups.get(planned.worker).plan(workerEnvFor(planned, opts.env ?? process.env), planned.maxMemoryMb);
  // Each instance's health check starts as soon as it (and every instance it is granted) has
  // started, not after the last start: a slow substrate (an MCP server's child process) then
  // boots while the other workers are still starting.
  const started = new Map(toStart.map((e) => [e.id, deferred()]));
  const checks: Promise<void>[] = [];
  const invoke = (e: InstanceEntry, m: string, a: unknown[], o: { timeoutMs: number }) => host.invoke(e, m, a, o);
  await mapBounded(toStart, os.availableParallelism(), async (entry) => {
    await startInstance(entry, host, registry, config, opts, groups);
    started.get(entry.id)!.resolve();
    if (entry.error) return progress(entry);
    if (!entry.worker) return;
    const grants = (entry.planned?.grants ?? []).map((g) => started.get(config.aliases[g] ?? g)?.promise);
    checks.push(Promise.all(grants).then(() => runHealthPass([entry], invoke, progress)));
  });
  await Promise.all(checks);

  for (const e of registry.all()) if (e.error && !e.required) e.state = "degraded";
  const failure = bootFailure(host.report());
  if (failure && !opts.collect) {
    await host.close();
    throw failure;
  }
  for (const e of registry.all()) {
    logger.info({ instance: e.id, state: e.state, health_ms: e.healthMs }, e.error ? `${e.id} ${e.state}: ${e.error.message}` : `${e.id} ${e.state}`);
  }
  return host;
}

/** Only the variables the plugin's manifest names in permissions.env. */
function workerEnvFor(planned: PlannedInstance, env: NodeJS.ProcessEnv): Record<string, string> {
  const workerEnv: Record<string, string> = {};
  for (const name of planned.pluginInfo.manifest.permissions.env) if (env[name] !== undefined) workerEnv[name] = env[name]!;
  return workerEnv;
}

export async function startInstance(entry: InstanceEntry, host: Host, registry: Registry, config: ResolvedConfig, opts: CreateHostOptions, groups: WorkerGroups): Promise<void> {
  const planned = entry.planned as PlannedInstance;
  const plugin = planned.pluginInfo;
  const workerEnv = workerEnvFor(planned, opts.env ?? process.env);
  const log = host.logger.child({ instance: entry.id, plugin: plugin.name });
  const operatorValues = operatorStrings(planned.config);

  entry.target = {
    instance: entry.id, kind: plugin.kind, capabilities: plugin.manifest.capabilities,
    allowedTools: planned.allowedTools, identity: planned.identity,
    ...(plugin.kind === "memory-store" ? { modes: declaredModes(plugin.manifest), filters: declaredFilters(plugin.manifest) } : {}),
  };
  entry.worker = new InstanceWorker({
    task: {
      instance: entry.id, kind: plugin.kind, pluginName: plugin.name, pluginDir: plugin.dir, entryPath: plugin.entryPath,
      capabilities: plugin.manifest.capabilities, requiredMethods: [...METHODS[plugin.kind].required],
      config: planned.config, configDir: config.dir, grants: planned.grants, aliases: authoringAliases(), jitiCacheDir: jitiCacheDir(),
    },
    env: workerEnv,
    isolation: planned.isolation,
    group: planned.worker ? groups.get(planned.worker) : undefined,
    net: plugin.manifest.permissions.net.length > 0,
    fsPaths: expandFsGrants(plugin.manifest.permissions.fs, planned.config),
    maxMemoryMb: planned.maxMemoryMb,
    startTimeoutMs: opts.startTimeoutMs ?? 30_000,
    graceMs: opts.graceMs ?? 2_000,
    onLog: (msg) => {
      if (msg.level === "warn" || msg.level === "error" || msg.level === "fatal") entry.lastWarning = describeLog(msg.msg, msg.data);
      log[msg.level](msg.data ?? {}, msg.msg);
    },
    // A worker only names which of the operator's own values are secret; anything else it sends is ignored.
    onSecrets: (values) => host.scrubber.addAll(values.filter((v) => operatorValues.has(v))),
    onGrantCall: (msg) => {
      if (!planned.grants.includes(msg.target)) {
        return Promise.reject(pbError("PB_ERR_GRANT_DENIED", `${entry.id} may not call "${msg.target}".`, { instance: entry.id, target: msg.target }));
      }
      return host.invoke(registry.get(msg.target), msg.method, msg.args);
    },
    onResourceUpdated: (uri) => host.resourceUpdated(entry.id, uri),
    onStateChange: (state, reason) => {
      if (state === "restarting") entry.restarts = (entry.restarts ?? 0) + 1;
      if (state === "restarting" || state === "failed") log.warn({ state }, `${entry.id} ${state}${reason ? `: ${reason.message}` : ""}`);
      // After boot the report follows the worker: an open circuit is "failed" until the host restarts.
      if (state === "failed" && reason?.code === "PB_ERR_CIRCUIT_OPEN") {
        entry.state = "failed";
        entry.error = toWire(reason);
      }
    },
  });
  try {
    await entry.worker.start();
  } catch (err) {
    entry.error = withConfigPointers(toWire(err), planned, config.file);
    entry.state = "failed";
  }
}

/** A plugin reports config problems by field; the user edits connectors.json, so name them by JSON pointer there. */
function withConfigPointers(wire: WireError, planned: PlannedInstance, file: string | null): WireError {
  const issues = wire.data.issues as { field: string; message: string }[] | undefined;
  if (wire.code !== "PB_ERR_INSTANCE_CONFIG_INVALID" || !Array.isArray(issues)) return wire;
  const pointed = issues.map((i) => ({ ...i, pointer: `${planned.pointer}/config${i.field ? "/" + i.field.split(".").join("/") : ""}` }));
  const lines = pointed.map((i) => `${i.pointer}: ${i.message}`);
  return { ...wire, message: `${planned.id} (plugin "${planned.pluginInfo.name}"): config does not match the plugin's schema:\n  ${lines.join("\n  ")}`, data: { ...wire.data, issues: pointed, file } };
}

/** Duplicate plugin names are always fatal; other discovery errors only matter to instances that use the plugin. */
function sortDiscoveryErrors(discovery: Discovery, config: ResolvedConfig) {
  const used = new Set(config.instances.map((i) => i.plugin));
  const fatal: PatchbayError[] = [];
  const warnings: PatchbayError[] = (config.pluginDirsDeclared ? discovery.missingDirs : []).map((d) =>
    pbError("PB_ERR_CONFIG_INVALID", `Plugin folder ${d} does not exist.`, { folder: d, file: config.file }, "Create the folder or remove it from \"plugins\" in connectors.json."));
  const byPlugin = new Map<string, PatchbayError>();
  for (const err of discovery.errors) {
    const name = typeof err.data.plugin === "string" ? err.data.plugin : typeof err.data.file === "string" ? path.basename(path.dirname(err.data.file)) : "";
    if (err.code === "PB_ERR_PLUGIN_DUPLICATE") fatal.push(err);
    else if (used.has(name)) byPlugin.set(name, err);
    else warnings.push(err);
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
    const inst = config.instances.find((i) => i.id === id);
    for (const g of inst?.grants ?? []) queue.push(config.aliases[g] ?? g);
  }
  return out;
}

/** The boot's one error listing every failure, or null when the boot succeeded. */
export function bootFailure(report: BootReport): PatchbayError | null {
  const failures = [...report.problems, ...report.instances.filter((i) => i.required && i.error).map((i) => i.error!)];
  return failures.length > 0 ? bootError(failures, null) : null;
}

/** One error listing every failure; its exit code is the most basic cause (config before load before health). */
function bootError(failures: WireError[], scrubber: Scrubber | null): PatchbayError {
  const scrub = <T>(v: T): T => (scrubber ? scrubber.scrubValue(v) : v);
  const exits = failures.map((f) => (f.data.exit as number | undefined) ?? exitOf(f));
  const exit = exits.includes(EXIT.USAGE) ? EXIT.USAGE : exits.includes(EXIT.PLUGIN_LOAD) ? EXIT.PLUGIN_LOAD : EXIT.UNHEALTHY;
  const lines = failures.map((f) => `  - ${f.data.instance ? `${String(f.data.instance)}: ` : ""}[${f.code}] ${f.message}`);
  return new PatchbayError(
    "PB_ERR_BOOT_FAILED",
    scrub(`Boot failed: ${failures.length} problem${failures.length === 1 ? "" : "s"}:\n${lines.join("\n")}`),
    scrub({ failures, exit }),
  );
}

function exitOf(f: WireError): number {
  return new PatchbayError(f.code, f.message).exitCode;
}

/** "message (error: ...)" from a plugin's log line, for a health failure's explanation. */
function describeLog(msg: string, data?: Record<string, unknown>): string {
  const detail = data && typeof data.error === "string" ? ` (${data.error})` : "";
  return `${msg}${detail}`.slice(0, 500);
}

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function mapBounded<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) await fn(items[next++]);
  });
  await Promise.all(lanes);
}

