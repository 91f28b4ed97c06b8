/**
 * `patchbay adapter install|uninstall`, as functions: install loads the adapter, probes its
 * client, composes and validates the plan, applies it (or, for a dry run, computes the same
 * changes and writes nothing — not even the probe cache), then records ownership. Uninstall needs
 * no adapter at all: it works from the record, so a broken or removed plugin can still be undone.
 */
import { existsSync, unlinkSync } from "node:fs";
import { pbError, toWire, type WireError } from "../../errors.js";
import { loadConfig } from "../../config/load.js";
import { adapterEnv, detectClient, openAdapter } from "../session.js";
import { installRecordPath, stateDirFor, type Env } from "../state.js";
import { applyInstall, applyUninstall, removeEmptyDirs, type Change, type UninstallResult } from "./apply.js";
import { assertRunner, composePlan } from "./plan.js";
import { readRecord, writeRecord, type RecordedArtifact } from "./record.js";

export interface InstallOptions {
  config?: string;
  cwd?: string;
  env?: Env;
  instance: string;
  dryRun?: boolean;
}

export interface InstallReport {
  instance: string;
  status: "installed" | "unchanged" | "planned" | "skipped" | "failed";
  reason: string | null;
  client: { present: boolean; version: string | null; path: string | null } | null;
  changes: Change[];
  recordFile: string | null;
  error: WireError | null;
}

const bare = (instance: string) => instance.replace(/^adapters\//, "");

export async function installAdapter(opts: InstallOptions): Promise<InstallReport> {
  const env = opts.env ?? process.env;
  const session = await openAdapter({ config: opts.config, cwd: opts.cwd, env, instance: opts.instance });
  const report: InstallReport = {
    instance: session.name,
    status: "failed",
    reason: null,
    client: null,
    changes: [],
    recordFile: null,
    error: null,
  };
  try {
    const client = await detectClient(session, { useCache: false });
    report.client = { present: client.detect.present, version: client.detect.version, path: client.probe.path };
    if (!client.detect.present) {
      const why =
        client.detect.diagnostics.map((d) => d.message).join(" ") ||
        `${session.manifest.client.command} is not installed on this machine.`;
      return {
        ...report,
        status: "skipped",
        reason: `${session.manifest.displayName} is not installed on this machine: ${why}`,
      };
    }
    const configFile = session.config.file;
    if (!configFile)
      throw pbError("PB_ERR_USAGE", "adapter install needs a connectors.json file (hooks load it by path).", {});
    assertRunner();
    const aEnv = adapterEnv(session, client);
    const artifacts = composePlan(aEnv, await session.call("planInstall", [aEnv]), {
      instance: session.name,
      configFile,
      stateDir: session.stateDir,
    });
    const recordFile = installRecordPath(session.stateDir);
    report.recordFile = recordFile;
    const record = readRecord(recordFile);
    const previous = record.adapters[session.name];
    const result = applyInstall(artifacts, previous, opts.dryRun === true);
    report.changes = result.changes;
    if (opts.dryRun) return { ...report, status: result.error ? "failed" : "planned", error: result.error };
    if (result.recorded.length > 0 || previous) {
      // Keep what an earlier install recorded and this plan did not reach (dropped artifacts, or ones after a failure).
      const carried = (previous?.artifacts ?? []).filter((p) => !result.recorded.some((r) => r.path === p.path));
      const artifactsNow: RecordedArtifact[] = [...result.recorded, ...carried];
      record.adapters[session.name] = {
        plugin: session.plugin.name,
        adapterId: session.manifest.id,
        artifacts: artifactsNow,
      };
      writeRecord(recordFile, record);
    }
    if (result.error) return { ...report, status: "failed", error: result.error };
    return { ...report, status: result.changes.every((c) => c.action === "unchanged") ? "unchanged" : "installed" };
  } catch (err) {
    return { ...report, status: "failed", error: toWire(err) };
  } finally {
    await session.close();
  }
}

export interface UninstallReport extends Omit<UninstallResult, "createdDirs"> {
  instance: string;
  status: "uninstalled" | "planned" | "not-installed";
  recordFile: string;
  removedDirs: string[];
}

export async function uninstallAdapter(opts: InstallOptions): Promise<UninstallReport> {
  const env = opts.env ?? process.env;
  const config = await loadConfig({ config: opts.config, cwd: opts.cwd, env });
  const stateDir = stateDirFor(config.dir, env);
  const recordFile = installRecordPath(stateDir);
  const record = readRecord(recordFile); // fails closed before anything is touched
  const name = bare(opts.instance);
  const entry = record.adapters[name];
  const empty = { removed: [], restored: [], kept: [], missing: [], unchanged: [], removedDirs: [] };
  if (!entry) return { instance: name, status: "not-installed", recordFile, ...empty };
  const result = applyUninstall(entry, opts.dryRun === true);
  const { createdDirs, ...lists } = result;
  if (opts.dryRun) return { instance: name, status: "planned", recordFile, ...lists, removedDirs: [] };
  delete record.adapters[name];
  if (Object.keys(record.adapters).length === 0) {
    if (existsSync(recordFile)) unlinkSync(recordFile);
  } else {
    writeRecord(recordFile, record);
  }
  return { instance: name, status: "uninstalled", recordFile, ...lists, removedDirs: removeEmptyDirs(createdDirs) };
}
