/**
 * Boots exactly one adapter instance (and what it is granted) and gives the hook runner, the
 * installer, doctor and the conformance kit one typed way to call it through the boundary, plus
 * the facts they share: its plugin folder, raw instance config, standard keys, state folder.
 */
import path from "node:path";
import type { DestinationStream } from "pino";
import { fromWire, pbError } from "../errors.js";
import { METHODS } from "../contract/kinds.js";
import {
  AdapterManifestSchema,
  type AdapterEnv,
  type AdapterManifest,
  type ClientProbe,
  type DetectResult,
} from "../adapter-sdk/contract.js";
import { StandardAdapterConfigSchema, type StandardAdapterConfig } from "../adapter-sdk/define.js";
import { deepFreeze } from "../adapter-sdk/event.js";
import type { ResolvedConfig } from "../config/load.js";
import type { DiscoveredPlugin, Discovery } from "../discovery/scan.js";
import { createHost } from "../host/host.js";
import type { Host } from "../host/api.js";
import { inspect } from "../host/inspect.js";
import { currentPlatform } from "./certification.js";
import { probeClient } from "./probe.js";
import { homeDir, probeCachePath, shimCommand, stateDirFor, type Env } from "./state.js";

export interface OpenAdapterOptions {
  /** Path of connectors.json or a parsed object (then `cwd` is its folder). */
  config?: string | Record<string, unknown>;
  cwd?: string;
  env?: Env;
  /** "claude-code" or "adapters/claude-code". */
  instance: string;
  logDestination?: DestinationStream;
  logLevel?: string;
  startTimeoutMs?: number;
}

export interface AdapterSession {
  /** "adapters/<name>" */
  id: string;
  name: string;
  host: Host;
  config: ResolvedConfig;
  plugin: DiscoveredPlugin;
  /** The instance's config as written (after ${VAR}); the standard keys parsed from it. */
  rawConfig: Record<string, unknown>;
  standard: StandardAdapterConfig;
  env: Env;
  stateDir: string;
  manifest: AdapterManifest;
  /** Methods the host may call: the required ones plus plugin.json "capabilities". */
  callable: readonly string[];
  call<T = unknown>(method: string, args?: unknown[], timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/** Finds the adapter instance without starting anything. */
export async function resolveAdapterInstance(opts: Pick<OpenAdapterOptions, "config" | "cwd" | "env" | "instance">) {
  const env = opts.env ?? process.env;
  const inspection = await inspect({ config: opts.config, cwd: opts.cwd, dir: opts.cwd, env });
  const { config, plan, discovery } = inspection;
  const wanted = opts.instance.startsWith("adapters/") ? opts.instance : `adapters/${opts.instance}`;
  const id = config.aliases[wanted] ?? wanted;
  const inst = config.instances.find((i) => i.id === id);
  if (!inst) {
    const known = config.instances.filter((i) => i.section === "adapters").map((i) => i.name);
    throw pbError(
      "PB_ERR_ADAPTER_UNKNOWN",
      `No adapter instance "${opts.instance}" in ${config.file ?? "the config"} (adapters: ${known.join(", ") || "none"}).`,
      { instance: opts.instance, known, configDir: config.dir },
      `Add the instance to connectors.json, e.g. "adapters": { ${JSON.stringify(wanted.slice("adapters/".length))}: { "plugin": ${JSON.stringify(wanted.slice("adapters/".length))} } } (adapter plugins found: ${adapterPlugins(discovery).join(", ") || "none"}), or name one of the instances listed.`,
    );
  }
  const planError = plan.errors.find((e) => e.data.instance === id);
  if (planError) throw planError;
  const planned = plan.instances.find((p) => p.id === id)!;
  const std = StandardAdapterConfigSchema.safeParse(inst.config);
  if (!std.success) {
    throw pbError(
      "PB_ERR_INSTANCE_CONFIG_INVALID",
      `${id}: ${std.error.issues.map((i) => `config.${i.path.join(".")}: ${i.message}`).join("; ")}`,
      { instance: id },
    );
  }
  return {
    id,
    name: inst.name,
    config,
    plugin: planned.pluginInfo,
    rawConfig: inst.config,
    standard: std.data,
    env,
    scrubber: inspection.scrubber,
  };
}

export async function openAdapter(opts: OpenAdapterOptions): Promise<AdapterSession> {
  const found = await resolveAdapterInstance(opts);
  const { id, config, env } = found;
  const host = await createHost({
    config: config.file ?? (opts.config as Record<string, unknown>),
    dir: config.dir,
    cwd: opts.cwd,
    env,
    only: [id],
    collect: true,
    logDestination: opts.logDestination,
    logLevel: opts.logLevel ?? "warn",
    startTimeoutMs: opts.startTimeoutMs,
  });
  const report = host.report().instances.find((i) => i.id === id);
  if (!report || report.error) {
    await host.close();
    throw report?.error
      ? fromWire(report.error)
      : pbError("PB_ERR_INSTANCE_UNAVAILABLE", `${id} did not start.`, { instance: id });
  }
  const call = <T>(method: string, args: unknown[] = [], timeoutMs?: number) =>
    host.call(id, method, args, { timeoutMs }) as Promise<T>;
  let manifest: AdapterManifest;
  try {
    manifest = deepFreeze(AdapterManifestSchema.parse(await call("manifest"))) as unknown as AdapterManifest;
  } catch (err) {
    await host.close();
    throw err;
  }
  return {
    ...found,
    host,
    manifest,
    stateDir: stateDirFor(config.dir, env),
    callable: [...METHODS.adapter.required, ...found.plugin.manifest.capabilities],
    call,
    close: () => host.close(),
  };
}

/** The host's probe of the client binary, then the adapter's reading of it. */
export async function detectClient(
  session: AdapterSession,
  opts: { timeoutMs?: number; useCache?: boolean } = {},
): Promise<{ probe: ClientProbe; detect: DetectResult }> {
  const probe = await probeClient(session.manifest.client, {
    env: session.env,
    timeoutMs: opts.timeoutMs,
    cacheFile: opts.useCache === false ? null : probeCachePath(session.stateDir),
  });
  const detect = await session.call<DetectResult>("detect", [probe, adapterEnv(session, null)]);
  return { probe, detect };
}

/** The facts an adapter's detect/doctor/planInstall receive: where it may read and write. */
export function adapterEnv(
  session: AdapterSession,
  client: { probe: ClientProbe; detect: DetectResult } | null,
): AdapterEnv {
  return {
    instance: session.name,
    home: homeDir(session.env),
    projectDir: path.resolve(session.config.dir),
    stateDir: session.stateDir,
    platform: currentPlatform(),
    hookCommand: shimCommand(session.stateDir, session.name),
    client: client
      ? { present: client.detect.present, path: client.probe.path, version: client.detect.version }
      : { present: false, path: null, version: null },
  };
}

/** The adapter plugins a config can name (bundled and its own folders'), for the hint of an unknown one. */
function adapterPlugins(discovery: Discovery): string[] {
  return [...discovery.plugins.values()].filter((p) => p.kind === "adapter").map((p) => p.name);
}
