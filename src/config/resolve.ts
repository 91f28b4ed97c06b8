/**
 * From a validated connectors.json to the ResolvedConfig shape: defaults applied, paths made
 * absolute, grants checked against the instances that exist, everything frozen.
 */
import path from "node:path";
import { SECTIONS } from "../contract/kinds.js";
import { toPointer, type ConfigIssue } from "./issues.js";
import type { ConnectorsFile } from "./schema.js";
import type { ResolvedConfig, ResolvedGateway, ResolvedInstance, ResolvedPinning } from "./types.js";
import { resolveClients } from "./resolve-clients.js";
import { AUDIT_DEFAULTS } from "./defaults.js";
import type { WireError } from "../errors.js";

/** A grant must name something that exists (an instance or an alias), or the plugin's call fails at run time. */
export function grantIssues(file: ConnectorsFile): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const section of SECTIONS) {
    for (const [name, entry] of Object.entries(file[section])) {
      if (typeof entry === "string") continue;
      entry.grants.forEach((ref, i) => {
        const slash = ref.indexOf("/");
        const targetSection = ref.slice(0, slash) as keyof ConnectorsFile;
        const target = ref.slice(slash + 1);
        const entries = file[targetSection] as Record<string, unknown>;
        if (!Object.hasOwn(entries, target)) {
          issues.push({
            pointer: toPointer([section, name, "grants", i]),
            message: `grants "${ref}", which is not an instance in connectors.json`,
          });
        }
      });
    }
  }
  return issues;
}

export interface BuildInput {
  file: string | null;
  dir: string;
  parsed: ConnectorsFile;
  aliases: Record<string, string>;
  secrets: string[];
  /** The file itself has a "plugins" key (before defaults). */
  pluginDirsDeclared: boolean;
  /** Instances that cannot start because of their own config problems (scoped loads). */
  blocked?: Record<string, WireError>;
}

export function buildResolved({
  file,
  dir,
  parsed,
  aliases,
  secrets,
  pluginDirsDeclared,
  blocked = {},
}: BuildInput): ResolvedConfig {
  const defaults = {
    timeoutMs: parsed.defaults.timeout_ms,
    healthTimeoutMs: parsed.defaults.health_timeout_ms,
    maxMemoryMb: parsed.defaults.max_memory_mb,
    healthIntervalMs: parsed.defaults.health_interval_ms,
  };
  const instances: ResolvedInstance[] = [];
  for (const section of SECTIONS) {
    for (const [name, entry] of Object.entries(parsed[section])) {
      if (typeof entry === "string") continue;
      instances.push({
        id: `${section}/${name}`,
        section,
        name,
        pointer: toPointer([section, name]),
        plugin: entry.plugin,
        required: entry.required,
        timeoutMs: entry.timeout_ms ?? defaults.timeoutMs,
        healthTimeoutMs: entry.health_timeout_ms ?? defaults.healthTimeoutMs,
        maxMemoryMb: entry.max_memory_mb ?? defaults.maxMemoryMb,
        healthIntervalMs: entry.health_interval_ms ?? defaults.healthIntervalMs,
        isolation: entry.isolation,
        worker: entry.worker ?? null,
        allowedTools: "allowed_tools" in entry && entry.allowed_tools ? entry.allowed_tools : null,
        identity: "identity" in entry && entry.identity ? entry.identity : null,
        grants: entry.grants,
        config: entry.config,
      });
    }
  }
  const pluginDirs = [...new Set(parsed.plugins.map((p) => path.resolve(dir, p)))];
  const { default: pinDefault, ...pinInstances } =
    typeof parsed.gateway.pinning === "string" ? { default: parsed.gateway.pinning } : parsed.gateway.pinning;
  const gateway: ResolvedGateway = {
    expose: { ...parsed.gateway.expose },
    pinning: { default: pinDefault ?? "enforce", instances: pinInstances } as ResolvedPinning,
    ...resolveClients(parsed.gateway),
    audit: {
      maxBytes: parsed.gateway.audit?.maxBytes ?? AUDIT_DEFAULTS.maxBytes,
      keep: parsed.gateway.audit?.keep ?? AUDIT_DEFAULTS.keep,
    },
  };
  return deepFreeze({
    file,
    dir,
    pluginDirs,
    pluginDirsDeclared,
    defaults,
    instances,
    aliases,
    secrets,
    blocked,
    trust: parsed.trust,
    gateway,
  });
}

/** Freeze `value` and everything reachable from it (cycles and shared objects visited once). */
function deepFreeze<T>(value: T, seen: WeakSet<object> = new WeakSet()): T {
  if (value === null || typeof value !== "object" || seen.has(value)) return value;
  seen.add(value);
  Object.freeze(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  return value;
}
