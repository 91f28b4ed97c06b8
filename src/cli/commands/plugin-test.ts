/**
 * `patchbay plugin test <name-or-path> [--config F] [--json]`: runs the plugin's kind's
 * conformance kit against the plugin loaded exactly as the host loads it (the kit boots it with
 * createHost: its own worker, the guard, config validation), one row per claim. Adapters get
 * the adapter kit (runAdapterConformance: the plugin in a sandbox with a fake client binary).
 *
 * Which config: always the plugin's test.config.json "config", never the config of a
 * connectors.json instance that wires the plugin: the kits write (records, skills, deliveries),
 * and an instance's store is live (a memory store has no delete). Relative paths in the fixture's
 * config resolve against a temp folder the kit removes, so testing never writes into the plugin
 * folder, the project or an instance's store. The report says which config ran, and which
 * instance it left alone.
 *
 * A plugin that cannot start (fails to load, never becomes ready) is one coded error, not a
 * failed row per claim.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { EXIT, isPatchbayError, pbError, type ExitCode } from "../../errors.js";
import { loadConfig, resolveConfigPath, type ResolvedConfig } from "../../config/load.js";
import { DEFAULT_PLUGIN_DIRS } from "../../config/schema.js";
import { readManifest, scanPlugins } from "../../discovery/scan.js";
import { bundledPluginsDir } from "../../paths.js";
import { suggest } from "../../contract/suggest.js";
import { readTestFixture, FIXTURE_FILE } from "../../scaffold/fixture.js";
import { runAdapterConformance } from "../../testing/index.js";
import { runConformanceOrThrow } from "../../testing/run.js";
import { KIT_KINDS, type ClaimResult, type ConformanceOptions, type KitKind } from "../../testing/types.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";
import { relativePaths, shownPath } from "../stack.js";
import { usageError } from "../help.js";

export async function pluginTestCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "plugin test", ["json"]);
  const [target, ...extra] = args.positionals;
  if (!target || extra.length > 0) throw usageError("plugin test");
  const cwd = process.cwd();

  const explicit = flagString(args, "config");
  const connectors = await findConnectors(explicit, cwd).catch((err: unknown) => {
    // A broken connectors.json found by search (say, another instance's unset variable) must not
    // stop testing a plugin: its own fixture serves, and the user is told why.
    if (explicit !== undefined || !isPatchbayError(err) || !err.code.startsWith("PB_ERR_CONFIG_")) throw err;
    io.err(
      `note: connectors.json could not be loaded (${err.code}), so the plugin is tested with its own ${FIXTURE_FILE}; \`patchbay doctor\` shows the problem.`,
    );
    return null;
  });
  if (connectors) io.scrubber.addAll(connectors.secrets);
  const folder = locatePlugin(target, connectors, cwd);
  const read = readManifest(folder, path.join(folder, "plugin.json"), false);
  if ("error" in read) throw read.error;
  const { name, kind } = read.plugin;

  const started = performance.now();
  const { source, run } = kind === "adapter" ? adapterRun(folder, name) : kitRun(kind as KitKind, folder, name);
  const spared = connectors?.instances.filter((i) => i.plugin === name).map((i) => i.id) ?? [];
  const claims = await run().catch((err: unknown) => {
    throw inFixtureTerms(err, source);
  });
  const ok = claims.every((c) => c.ok);
  const summary = {
    passed: claims.filter((c) => c.ok && !c.skipped).length,
    skipped: claims.filter((c) => c.skipped).length,
    failed: claims.filter((c) => !c.ok).length,
  };

  if (args.flags.json) {
    io.out(
      JSON.stringify(
        {
          ok,
          plugin: { name, kind, version: read.plugin.version, dir: folder },
          config_from: source,
          instances_not_used: spared,
          summary,
          claims,
        },
        null,
        2,
      ),
    );
  } else {
    const untouched =
      spared.length > 0
        ? `\n        (not ${spared.join(", ")} from connectors.json: the kit calls and writes, and that instance is live)`
        : "";
    io.out(
      `${name}@${read.plugin.version} (${kind}) from ${shownPath(folder)}\nconfig: ${relativePaths(source)}, in a throwaway folder${untouched}\n`,
    );
    for (const c of claims) io.out(row(c));
    io.out(
      `\n${ok ? "ok" : "FAILED"}: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped (${Math.round(performance.now() - started)} ms)`,
    );
  }
  return ok ? EXIT.OK : EXIT.UNHEALTHY;
}

function row(c: ClaimResult): string {
  if (c.skipped) return `  -  ${c.claim}\n       skipped: ${c.reason ?? ""}`;
  if (c.ok) return `  ✓  ${c.claim} (${c.ms} ms)`;
  return `  ✗  ${c.claim}\n       ${relativePaths(c.reason ?? "failed")
    .split("\n")
    .join("\n       ")}`;
}

/**
 * The kit boots the fixture's config as an instance named "<section>/kit": an error about that
 * instance is said in the fixture's terms (its file, JSON pointers into it, its own settings),
 * where the user fixes it, and not about an instance no connectors.json has.
 */
export function inFixtureTerms(err: unknown, fixtureFile: string): unknown {
  if (!isPatchbayError(err)) return err;
  const instance = err.data.instance;
  if (typeof instance !== "string" || !/^[A-Za-z]+\/kit(-narrow)?$/.test(instance)) return err;
  const said = (text: string) =>
    text.replaceAll(`/${instance}/config`, "/config").replaceAll(instance, `${FIXTURE_FILE}'s config`);
  const issues = Array.isArray(err.data.issues)
    ? (err.data.issues as { pointer?: string }[]).map((i) => ({ ...i, ...(i.pointer && { pointer: said(i.pointer) }) }))
    : undefined;
  const hint =
    err.code === "PB_ERR_INSTANCE_CONFIG_INVALID"
      ? `Fix the fields named under "config" in ${FIXTURE_FILE}; the plugin's config schema (and README) lists its options.`
      : err.code === "PB_ERR_HEALTH_TIMEOUT" || err.code === "PB_ERR_PLUGIN_START_TIMEOUT"
        ? `Make the plugin answer sooner, or give the kit more time: "healthTimeoutMs" (and "timeoutMs") in ${FIXTURE_FILE}.`
        : err.hint;
  return pbError(err.code, said(err.message), { ...err.data, file: fixtureFile, ...(issues && { issues }) }, hint);
}

/** The connectors.json the host would use, or null when there is none (only then: a broken one is an error). */
async function findConnectors(explicit: string | undefined, cwd: string): Promise<ResolvedConfig | null> {
  try {
    resolveConfigPath({ config: explicit, cwd });
  } catch (err) {
    if (explicit === undefined && isPatchbayError(err) && err.code === "PB_ERR_CONFIG_NOT_FOUND") return null;
    throw err;
  }
  return loadConfig({ config: explicit, cwd });
}

/** A folder (anything path-like, or a folder holding plugin.json), else a name looked up as the host would. */
function locatePlugin(target: string, connectors: ResolvedConfig | null, cwd: string): string {
  const asPath = path.resolve(cwd, target);
  const pathLike = path.isAbsolute(target) || target.startsWith(".") || /[\\/]/.test(target);
  if (pathLike || existsSync(path.join(asPath, "plugin.json"))) {
    if (!existsSync(path.join(asPath, "plugin.json"))) {
      throw pbError("PB_ERR_PLUGIN_NOT_FOUND", `${asPath} holds no plugin.json.`, { plugin: target, folder: asPath });
    }
    return asPath;
  }
  // Without a connectors.json the host would scan its default folders, relative to the working folder.
  const dirs = connectors ? [...connectors.pluginDirs] : DEFAULT_PLUGIN_DIRS.map((d) => path.resolve(cwd, d));
  const discovery = scanPlugins(dirs, bundledPluginsDir());
  const found = discovery.plugins.get(target);
  // A plugin that exists but cannot load (API range, entry, manifest) deserves its own error, not "not found".
  const broken = discovery.errors.find(
    (e) =>
      e.data.plugin === target ||
      (typeof e.data.file === "string" && path.basename(path.dirname(e.data.file)) === target),
  );
  if (!found && broken) throw broken;
  if (!found) {
    const close = suggest(target, [...discovery.plugins.keys()]);
    throw pbError(
      "PB_ERR_PLUGIN_NOT_FOUND",
      `No plugin named "${target}" in ${[...dirs, "the bundled plugins"].join(", ")}.${close ? ` Did you mean "${close}"?` : ""}`,
      { plugin: target, searched: dirs, ...(close ? { suggestion: close } : {}) },
    );
  }
  return found.dir;
}

interface Planned {
  /** Where the instance config comes from, for the report. */
  source: string;
  run(): Promise<ClaimResult[]>;
}

/** A connector kind's kit, with the fixture's config; the kit runs it in a temp folder it removes. */
function kitRun(kind: KitKind, folder: string, name: string): Planned {
  if (!(KIT_KINDS as readonly string[]).includes(kind))
    throw pbError("PB_ERR_USAGE", `Plugin "${name}" is of kind ${kind}, which has no conformance kit.`, {
      plugin: name,
      kind,
    });
  const fixture = readTestFixture(folder, kind);
  const config = requireConfig(fixture, folder, name);
  const options = { plugin: folder, ...fixture!.options, config } as ConformanceOptions;
  return { source: fixture!.file, run: () => runConformanceOrThrow(kind, options) };
}

/** Adapters have a kit of their own: the plugin in a sandbox (temp HOME and project, a fake client binary). */
function adapterRun(folder: string, name: string): Planned {
  const fixture = readTestFixture(folder, "adapter");
  const config = requireConfig(fixture, folder, name);
  return {
    source: fixture!.file,
    run: () => runAdapterConformance({ ...fixture!.options, pluginDir: folder, config }),
  };
}

function requireConfig(
  fixture: ReturnType<typeof readTestFixture>,
  folder: string,
  name: string,
): Record<string, unknown> {
  if (fixture?.config) return fixture.config;
  throw pbError(
    "PB_ERR_PLUGIN_TEST_FIXTURE",
    `No config to test "${name}" with: ${path.join(folder, FIXTURE_FILE)} ${fixture ? 'has no "config"' : "does not exist"}. plugin test never borrows a connectors.json instance's config: the kit calls and writes, and that instance is live.`,
    { plugin: name, folder },
    `Add a ${FIXTURE_FILE} to the plugin folder whose "config" the plugin accepts and points at a store the kit may write to (relative paths land in a throwaway folder).`,
  );
}
