/**
 * Starting one instance: its guard target, its worker (isolation, group, env limited to the
 * manifest's permissions, fs and net grants) and the callbacks a worker reports through (logs,
 * secrets, grant calls, resource updates, state changes). Used by the boot and by hot reload.
 */
import { pbError, toWire, type WireError } from "../errors.js";
import { METHODS } from "../contract/kinds.js";
import { declaredFilters, declaredModes } from "../contract/manifest.js";
import type { ResolvedConfig } from "../config/load.js";
import type { PlannedInstance } from "../discovery/plan.js";
import { InstanceWorker } from "../spawn/instance-worker.js";
import type { WorkerGroups } from "../spawn/group-runtime.js";
import { expandFsGrants } from "../spawn/fs-grants.js";
import type { InstanceEntry, Registry } from "../registry/registry.js";
import { operatorStrings } from "../secrets.js";
import { authoringAliases, bundledSdkAliases, jitiCacheDir } from "../paths.js";
import { isShippedPlugin } from "../discovery/shipped.js";
import type { Host } from "./api.js";
import type { CreateHostOptions } from "./options.js";

/** Only the variables the plugin's manifest names in permissions.env. */
export function workerEnvFor(planned: PlannedInstance, env: NodeJS.ProcessEnv): Record<string, string> {
  const workerEnv: Record<string, string> = {};
  for (const name of planned.pluginInfo.manifest.permissions.env) {
    if (env[name] !== undefined && !HOST_ONLY_ENV.has(name)) workerEnv[name] = env[name]!;
  }
  return workerEnv;
}

/**
 * Never handed to a plugin, whatever its manifest names: the gateway's bearer token would let a
 * plugin drive every instance over HTTP, past its own grants.
 */
const HOST_ONLY_ENV = new Set(["PATCHBAY_TOKEN"]);
/**
 * Calls one instance may have in flight to the instances it was granted. Each holds its
 * arguments in the host until its target answers, and a plugin can make them in a loop without
 * awaiting any; past this many it is told to wait (PB_ERR_GRANT_BUSY) instead.
 */
export const MAX_GRANT_CALLS_IN_FLIGHT = 256;

/**
 * A plugin reports what its upstream server asked (mcp-remote: sampling, elicitation, roots) as
 * cumulative counts in a log line's data, so a line the log cap drops loses nothing.
 */
function clientRequestCounts(data: Record<string, unknown> | undefined): { served: number; refused: number } | null {
  const c = data?.client_requests as { served?: unknown; refused?: unknown } | undefined;
  if (!c || typeof c !== "object") return null;
  const { served, refused } = c;
  const count = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  return count(served) && count(refused) ? { served, refused } : null;
}

export async function startInstance(
  entry: InstanceEntry,
  host: Host,
  registry: Registry,
  config: ResolvedConfig,
  opts: CreateHostOptions,
  groups: WorkerGroups,
): Promise<void> {
  const planned = entry.planned as PlannedInstance;
  const plugin = planned.pluginInfo;
  const workerEnv = workerEnvFor(planned, opts.env ?? process.env);
  const log = host.logger.child({ instance: entry.id, plugin: plugin.name });
  const operatorValues = operatorStrings(planned.config);
  let grantCallsInFlight = 0;

  entry.target = {
    instance: entry.id,
    kind: plugin.kind,
    capabilities: plugin.manifest.capabilities,
    allowedTools: planned.allowedTools,
    identity: planned.identity,
    ...(plugin.kind === "memory-store"
      ? { modes: declaredModes(plugin.manifest), filters: declaredFilters(plugin.manifest) }
      : {}),
  };
  entry.worker = new InstanceWorker({
    task: {
      instance: entry.id,
      kind: plugin.kind,
      pluginName: plugin.name,
      pluginDir: plugin.dir,
      entryPath: plugin.entryPath,
      capabilities: plugin.manifest.capabilities,
      requiredMethods: [...METHODS[plugin.kind].required],
      config: planned.config,
      configDir: config.dir,
      grants: planned.grants,
      aliases: isShippedPlugin(plugin.dir) ? { ...authoringAliases(), ...bundledSdkAliases() } : authoringAliases(),
      jitiCacheDir: jitiCacheDir(),
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
      if (msg.level === "warn" || msg.level === "error" || msg.level === "fatal")
        entry.lastWarning = describeLog(msg.msg, msg.data);
      const asked = clientRequestCounts(msg.data);
      if (asked) entry.clientRequests = asked;
      log[msg.level](msg.data ?? {}, msg.msg);
    },
    // A worker only names which of the operator's own values are secret; anything else it sends is ignored.
    onSecrets: (values) => host.scrubber.addAll(values.filter((v) => operatorValues.has(v))),
    onGrantCall: (msg) => {
      if (!planned.grants.includes(msg.target)) {
        return Promise.reject(
          pbError("PB_ERR_GRANT_DENIED", `${entry.id} may not call "${msg.target}".`, {
            instance: entry.id,
            target: msg.target,
          }),
        );
      }
      if (grantCallsInFlight >= MAX_GRANT_CALLS_IN_FLIGHT) {
        return Promise.reject(
          pbError(
            "PB_ERR_GRANT_BUSY",
            `${entry.id} already has ${MAX_GRANT_CALLS_IN_FLIGHT} calls to other instances in flight; this one to "${msg.target}" was not made.`,
            { instance: entry.id, target: msg.target, limit: MAX_GRANT_CALLS_IN_FLIGHT },
          ),
        );
      }
      grantCallsInFlight++;
      return host.invoke(registry.get(msg.target), msg.method, msg.args).finally(() => grantCallsInFlight--);
    },
    onResourceUpdated: (uri) => host.resourceUpdated(entry.id, uri),
    onListChanged: (list) => host.listChanged(entry.id, list),
    onStateChange: (state, reason) => {
      if (state === "restarting") {
        entry.restarts = (entry.restarts ?? 0) + 1;
        // A new worker may bring another upstream (a new release, a new process): its definitions are read again.
        host.listChanged(entry.id, "all");
      }
      if (state === "restarting" || state === "failed")
        log.warn({ state }, `${entry.id} ${state}${reason ? `: ${reason.message}` : ""}`);
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
  const pointed = issues.map((i) => ({
    ...i,
    pointer: `${planned.pointer}/config${i.field ? "/" + i.field.split(".").join("/") : ""}`,
  }));
  const lines = pointed.map((i) => `${i.pointer}: ${i.message}`);
  return {
    ...wire,
    message: `${planned.id} (plugin "${planned.pluginInfo.name}"): config does not match the plugin's schema:\n  ${lines.join("\n  ")}`,
    data: { ...wire.data, issues: pointed, file },
  };
}

/** "message (error: ...)" from a plugin's log line, for a health failure's explanation. */
function describeLog(msg: string, data?: Record<string, unknown>): string {
  const detail = data && typeof data.error === "string" ? ` (${data.error})` : "";
  return `${msg}${detail}`.slice(0, 500);
}
