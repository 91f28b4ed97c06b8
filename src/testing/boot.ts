/**
 * Boots the plugin under test exactly as the host boots any plugin: createHost() with an object
 * connectors.json naming one instance ("<section>/kit") of it, in its own worker, behind the
 * guard. A plugin given as a folder is linked into a private plugins folder, so nothing else in
 * its parent folder is scanned; a plugin given by name is found the way connectors.json finds it.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pbError, toWire } from "../errors.js";
import { SECTION_OF_KIND } from "../contract/kinds.js";
import type { Manifest } from "../contract/manifest.js";
import { loadConfig } from "../config/load.js";
import { readManifest, scanPlugins } from "../discovery/scan.js";
import { bundledPluginsDir } from "../paths.js";
import { createHost } from "../host/host.js";
import type { Host } from "../host/api.js";
import type { ConformanceOptions, InvalidHealth, KitKind } from "./types.js";

export const INSTANCE = "kit";
/** mcp only: a second instance whose allowed_tools holds only the kit's call tool. */
export const NARROW_INSTANCE = "kit-narrow";

export interface Target {
  name: string;
  manifest: Manifest;
  pluginDirs: string[];
  dir: string;
  config: Record<string, unknown>;
  /** The environment `${VAR}` in the configs reads: the caller's, plus PATCHBAY_PLUGIN_DIR. */
  env: Record<string, string | undefined>;
  /** Temp folders to remove when the kit is done. */
  temps: string[];
}

/** Finds the plugin and its valid config; throws a PatchbayError that says what is wrong. */
export async function resolveTarget(kind: KitKind, opts: ConformanceOptions): Promise<Target> {
  const temps: string[] = [];
  const temp = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), "patchbay-kit-"));
    temps.push(d);
    return d;
  };
  const env = opts.env ?? process.env;
  const connectors = opts.connectors ? await loadConfig({ config: opts.connectors, env }) : null;
  const dir = path.resolve(opts.dir ?? connectors?.dir ?? temp());
  let name: string;
  let manifest: Manifest;
  let pluginDirs: string[];
  let pluginDir: string;

  const folder = path.resolve(opts.plugin);
  if (looksLikePath(opts.plugin) || existsSync(path.join(folder, "plugin.json"))) {
    const read = readManifest(folder, path.join(folder, "plugin.json"), false);
    if ("error" in read) throw read.error;
    ({ name, manifest } = read.plugin);
    pluginDir = folder;
    const farm = path.join(temp(), "plugins");
    mkdirSync(farm);
    symlinkSync(realpathSync(folder), path.join(farm, name), "dir");
    pluginDirs = [farm];
  } else {
    pluginDirs = connectors ? [...connectors.pluginDirs] : [];
    const found = scanPlugins(pluginDirs, bundledPluginsDir()).plugins.get(opts.plugin);
    if (!found)
      throw pbError(
        "PB_ERR_CONFIG_UNKNOWN_PLUGIN",
        `patchbay/testing: no plugin named "${opts.plugin}" in ${[...pluginDirs, "the bundled plugins"].join(", ")}.`,
        { plugin: opts.plugin },
      );
    ({ name, manifest, dir: pluginDir } = found);
  }
  if (manifest.kind !== kind) {
    throw pbError(
      "PB_ERR_CONFIG_WRONG_KIND",
      `patchbay/testing: plugin "${name}" is a ${manifest.kind} plugin, but the ${kind} kit was asked for.`,
      { plugin: name, kind: manifest.kind, expected: kind },
    );
  }
  const fromFile = connectors?.instances.find((i) => i.plugin === name)?.config;
  const config = opts.config ?? (fromFile ? { ...fromFile } : undefined);
  if (!config)
    throw pbError(
      "PB_ERR_USAGE",
      `patchbay/testing: give a valid config for "${name}" (options.config, or an instance of it in ${opts.connectors ?? "a connectors.json"}).`,
      { plugin: name },
    );
  // A fixture names files its plugin ships (a server to talk to, say) as ${PATCHBAY_PLUGIN_DIR}/...:
  // the kit's connectors folder is a temp folder, and the working folder is wherever the user is.
  return { name, manifest, pluginDirs, dir, config, env: { ...env, PATCHBAY_PLUGIN_DIR: pluginDir }, temps };
}

function looksLikePath(value: string): boolean {
  return path.isAbsolute(value) || value.startsWith(".") || value.includes("/") || value.includes(path.sep);
}

/** A host running the plugin with `config`; `collect`, so an unhealthy instance is reported, not thrown. */
export async function bootKit(
  kind: KitKind,
  target: Target,
  opts: ConformanceOptions,
  config: Record<string, unknown>,
  required: boolean,
): Promise<Host> {
  const section = SECTION_OF_KIND[kind];
  const instance = (extra: Record<string, unknown> = {}) => ({
    plugin: target.name,
    required,
    config,
    timeout_ms: opts.timeoutMs ?? 10_000,
    health_timeout_ms: opts.healthTimeoutMs ?? 5_000,
    ...extra,
  });
  const instances: Record<string, unknown> = { [INSTANCE]: instance() };
  if (kind === "mcp" && required && opts.mcp)
    instances[NARROW_INSTANCE] = instance({ allowed_tools: [opts.mcp.call.tool] });
  return createHost({
    config: { plugins: target.pluginDirs, [section]: instances },
    dir: target.dir,
    env: target.env,
    logLevel: "silent",
    collect: true,
  });
}

/** Boots the invalid config and asks health_check, classifying how it answered. */
export async function checkInvalidHealth(
  kind: KitKind,
  target: Target,
  opts: ConformanceOptions,
  config: Record<string, unknown>,
): Promise<InvalidHealth> {
  const id = `${SECTION_OF_KIND[kind]}/${INSTANCE}`;
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  let host: Host;
  try {
    host = await bootKit(kind, target, opts, config, false);
  } catch (err) {
    return { outcome: "not-started", ms: ms(), detail: toWire(err).message };
  }
  try {
    const report = host.report().instances.find((i) => i.id === id)!;
    const code = report.error?.code;
    if (code === "PB_ERR_HEALTH_TIMEOUT") return { outcome: "hung", ms: ms(), detail: report.error!.message };
    if (code && code !== "PB_ERR_HEALTH_FAILED")
      return { outcome: "not-started", ms: ms(), detail: `${code}: ${report.error!.message}` };
    const asked = performance.now();
    try {
      const healthy = await host.call(id, "health_check", [], { timeoutMs: opts.healthTimeoutMs ?? 5_000 });
      const took = Math.round(performance.now() - asked);
      return healthy === false
        ? { outcome: "false", ms: took }
        : { outcome: "true", ms: took, detail: `health_check() answered ${JSON.stringify(healthy)}` };
    } catch (err) {
      const wire = toWire(err);
      const took = Math.round(performance.now() - asked);
      return wire.code === "PB_ERR_CALL_TIMEOUT"
        ? { outcome: "hung", ms: took, detail: wire.message }
        : { outcome: "threw", ms: took, detail: `${wire.code}: ${wire.message}` };
    }
  } finally {
    await host.close();
  }
}

export function removeTemps(target: Target | null): void {
  for (const d of target?.temps ?? []) rmSync(d, { recursive: true, force: true });
}
