/**
 * The checks defineAdapter() runs at create(), inside the worker at load: the definition's id,
 * client and module paths, the methods create() returned, and the capability declaration, where
 * every `true` must be backed by the methods it needs. Each problem is one
 * PB_ERR_ADAPTER_MANIFEST_INVALID naming the key, so the instance's load error says what to fix.
 */
import type { z } from "zod";
import { pbError, type PatchbayError } from "../errors.js";
import { portableNameProblem } from "../contract/names.js";
import {
  ADAPTER_CAPABILITIES,
  ADAPTER_OPTIONAL_METHODS,
  ADAPTER_REQUIRED_METHODS,
  CAPABILITY_GROUPS,
  type AdapterManifest,
  type CapabilityGroup,
  type CapabilityShape,
} from "./contract.js";
import type { AdapterDefinition } from "./define.js";
import { deepFreeze } from "./event.js";

/** The methods a create() must return itself (health_check defaults to "healthy", manifest is ours). */
const AUTHOR_REQUIRED = ADAPTER_REQUIRED_METHODS.filter((m) => m !== "health_check" && m !== "manifest");
const KNOWN_METHODS = new Set<string>([...ADAPTER_REQUIRED_METHODS, ...ADAPTER_OPTIONAL_METHODS, "close"]);

export function usage(message: string, key: string): PatchbayError {
  return pbError("PB_ERR_ADAPTER_MANIFEST_INVALID", message, { key });
}

/**
 * Checks the manifest against the methods create() returned; returns the frozen manifest with
 * every capability present (omitted ones false). Throws PB_ERR_ADAPTER_MANIFEST_INVALID naming the key.
 */
export function validateAdapter(definition: AdapterDefinition<z.ZodObject>, methods: unknown): AdapterManifest {
  const d = (definition ?? {}) as Partial<AdapterDefinition<z.ZodObject>> & Record<string, unknown>;
  if (typeof d.id !== "string" || d.id.trim() === "") throw usage("an adapter must declare an id", "id");
  const idProblem = portableNameProblem(d.id);
  if (idProblem) throw usage(`invalid adapter id ${JSON.stringify(d.id)}: it ${idProblem}`, "id");
  if (typeof d.displayName !== "string" || d.displayName.trim() === "")
    throw usage("an adapter must declare a displayName", "displayName");
  const client = (d.client ?? {}) as Record<string, unknown>;
  if (typeof client.command !== "string" || client.command.trim() === "") {
    throw usage("an adapter must declare client.command, the binary its client installs", "client.command");
  }
  const versionArgs = client.versionArgs ?? ["--version"];
  if (!Array.isArray(versionArgs) || versionArgs.some((a) => typeof a !== "string"))
    throw usage("client.versionArgs must be an array of strings", "client.versionArgs");
  const certificationName = client.certificationName ?? d.id;
  if (typeof certificationName !== "string" || certificationName === "")
    throw usage("client.certificationName must be a non-empty string", "client.certificationName");
  const packageName = client.packageName;
  if (packageName !== undefined && (typeof packageName !== "string" || !/^(@[\w.-]+\/)?[\w.-]+$/.test(packageName)))
    throw usage("client.packageName must be an npm package name", "client.packageName");
  for (const key of Object.keys(client)) {
    if (!["command", "versionArgs", "certificationName", "packageName"].includes(key))
      throw usage(`unknown client key: client.${key}`, `client.${key}`);
  }

  if (!methods || typeof methods !== "object")
    throw usage(`adapter ${d.id}: create() must return an object of adapter methods`, "create");
  const m = methods as Record<string, unknown>;
  for (const name of AUTHOR_REQUIRED) {
    if (typeof m[name] !== "function") throw usage(`an adapter must implement ${name}()`, name);
  }
  for (const name of Object.keys(m)) {
    if (name === "manifest")
      throw usage("create() must not return manifest(): defineAdapter builds it from the definition", "manifest");
    if (typeof m[name] === "function" && !KNOWN_METHODS.has(name)) {
      throw usage(
        `unknown adapter method ${name}() (the adapter contract has: ${[...KNOWN_METHODS].join(", ")})`,
        name,
      );
    }
  }

  const capabilities = capabilityShape(d.capabilities, (method) => typeof m[method] === "function");
  const fastHook = pluginFile(d.fastHook, "fastHook", "src/hooks.ts");
  const certifyDriver = pluginFile(d.certifyDriver, "certifyDriver", "src/certify.ts");
  return deepFreeze({
    id: d.id,
    displayName: d.displayName,
    client: {
      command: client.command,
      versionArgs: [...(versionArgs as string[])],
      certificationName,
      ...(packageName ? { packageName } : {}),
    },
    capabilities,
    ...(fastHook ? { fastHook } : {}),
    ...(certifyDriver ? { certifyDriver } : {}),
  });
}

/** A module path declared by the definition: relative, inside the plugin folder. */
function pluginFile(value: unknown, key: string, example: string): string | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== "string" ||
    !/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(value) ||
    value.split("/").includes("..")
  ) {
    throw usage(`${key} must be a relative path inside the plugin folder, e.g. "${example}"`, key);
  }
  return value;
}

/** The full boolean shape from a declaration; throws naming the first bad key. */
export function capabilityShape(declared: unknown, hasMethod: (name: string) => boolean): CapabilityShape {
  if (declared !== undefined && (declared === null || typeof declared !== "object" || Array.isArray(declared))) {
    throw usage("capabilities must be an object of groups", "capabilities");
  }
  const decl = (declared ?? {}) as Record<string, unknown>;
  for (const group of Object.keys(decl)) {
    if (!(CAPABILITY_GROUPS as string[]).includes(group))
      throw usage(
        `unknown capability group: ${group} (groups: ${CAPABILITY_GROUPS.join(", ")})`,
        `capabilities.${group}`,
      );
    const entries = decl[group];
    if (!entries || typeof entries !== "object" || Array.isArray(entries))
      throw usage(`capability group ${group} must be an object of booleans`, `capabilities.${group}`);
    const known = Object.keys(ADAPTER_CAPABILITIES[group as CapabilityGroup]);
    for (const [name, value] of Object.entries(entries)) {
      if (!known.includes(name))
        throw usage(
          `unknown capability: ${group}.${name} (${group} has: ${known.join(", ")})`,
          `capabilities.${group}.${name}`,
        );
      if (typeof value !== "boolean")
        throw usage(
          `capability ${group}.${name} must be a boolean, not ${JSON.stringify(value)}`,
          `capabilities.${group}.${name}`,
        );
    }
  }
  const shape: Record<string, Record<string, boolean>> = {};
  for (const group of CAPABILITY_GROUPS) {
    shape[group] = {};
    const given = (decl[group] ?? {}) as Record<string, boolean>;
    for (const [name, needs] of Object.entries(ADAPTER_CAPABILITIES[group]) as [string, readonly string[]][]) {
      const on = given[name] === true;
      if (on) {
        for (const method of needs) {
          if (hasMethod(method)) continue;
          const why =
            method === "denyOutcome"
              ? ": without it the guard would silently allow"
              : method === "injectOutcome"
                ? ": without it the context would be silently dropped"
                : "";
          throw usage(`capability ${group}.${name} requires ${method}()${why}`, `capabilities.${group}.${name}`);
        }
      }
      shape[group][name] = on;
    }
  }
  return shape as unknown as CapabilityShape;
}
