/**
 * `patchbay adapter install|uninstall`, as functions: install loads the adapter, probes its
 * client, composes and validates the plan, applies it (or, for a dry run, computes the same
 * changes and writes nothing — not even the probe cache), then records ownership. Uninstall needs
 * no adapter at all: it works from the record, so a broken or removed plugin can still be undone;
 * only the trust records an `install --trust-hooks` wrote need it (the client's own tooling removes
 * them), and when it cannot load they are named in the report, not forgotten.
 */
import { existsSync, unlinkSync } from "node:fs";
import { pbError, toWire, type WireError } from "../../errors.js";
import { TrustResultSchema, type Inactive, type TrustResult } from "../../adapter-sdk/contract.js";
import { loadConfig } from "../../config/load.js";
import { adapterEnv, detectClient, openAdapter, type AdapterSession } from "../session.js";
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
  /** Install only: have the client record its trust in the hooks just written (the adapter's trustHooks()). */
  trustHooks?: boolean;
}

export interface InstallReport {
  instance: string;
  status: "installed" | "unchanged" | "planned" | "skipped" | "failed";
  reason: string | null;
  client: { present: boolean; version: string | null; path: string | null } | null;
  changes: Change[];
  /** The adapter's notes about this install. */
  notes: string[];
  /** Set when the client will not run the hooks yet, with the exact step that makes it. */
  inactive: Inactive | null;
  /** What `--trust-hooks` had the client record; null without the flag. */
  trust: TrustResult | null;
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
    notes: [],
    inactive: null,
    trust: null,
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
    // A client with no trust step runs the hooks as installed: the flag has nothing to do for it, and
    // `install a b --trust-hooks` must still install a.
    const trusting = opts.trustHooks === true && session.callable.includes("trustHooks");
    const plan = (await session.call("planInstall", [aEnv])) as { notes?: unknown; inactive?: unknown };
    const artifacts = composePlan(aEnv, plan, {
      instance: session.name,
      configFile,
      stateDir: session.stateDir,
    });
    // composePlan validated the whole plan, these fields included.
    report.notes = (plan.notes as string[] | undefined) ?? [];
    report.inactive = (plan.inactive as Inactive | undefined) ?? null;
    if (opts.trustHooks && !trusting)
      report.notes.push(
        `--trust-hooks: ${session.manifest.displayName} runs the hooks without a trust step, so there is nothing to record.`,
      );
    const recordFile = installRecordPath(session.stateDir);
    report.recordFile = recordFile;
    const record = readRecord(recordFile);
    const previous = record.adapters[session.name];
    const result = applyInstall(artifacts, previous, opts.dryRun === true);
    report.changes = result.changes;
    if (opts.dryRun) {
      if (opts.trustHooks)
        report.notes.push(
          "--trust-hooks: after the write, the client would be asked to record its trust in these hooks.",
        );
      return { ...report, status: result.error ? "failed" : "planned", error: result.error };
    }
    if (result.recorded.length > 0 || previous) {
      // Keep what an earlier install recorded and this plan did not reach (dropped artifacts, or ones after a failure).
      const carried = (previous?.artifacts ?? []).filter((p) => !result.recorded.some((r) => r.path === p.path));
      const artifactsNow: RecordedArtifact[] = [...result.recorded, ...carried];
      record.adapters[session.name] = {
        plugin: session.plugin.name,
        adapterId: session.manifest.id,
        artifacts: artifactsNow,
        ...(previous?.trusted ? { trusted: previous.trusted } : {}),
      };
      writeRecord(recordFile, record);
    }
    if (result.error) return { ...report, status: "failed", error: result.error };
    const status = result.changes.every((c) => c.action === "unchanged") ? "unchanged" : "installed";
    if (!trusting) return { ...report, status };
    // After the write, so the client hashes the hooks as they now are; recorded before anything else can fail.
    const trust = await recordTrust(session, aEnv);
    const entry = record.adapters[session.name];
    if (entry && trust.trusted.length > 0) {
      entry.trusted = [...new Set([...(entry.trusted ?? []), ...trust.trusted])];
      writeRecord(recordFile, record);
    }
    return { ...report, status, trust, inactive: null };
  } catch (err) {
    return { ...report, status: "failed", error: toWire(err) };
  } finally {
    await session.close();
  }
}

async function recordTrust(session: AdapterSession, env: ReturnType<typeof adapterEnv>): Promise<TrustResult> {
  try {
    return TrustResultSchema.parse(await session.call("trustHooks", [env], 60_000));
  } catch (err) {
    throw pbError(
      "PB_ERR_HOOK_TRUST_FAILED",
      `${session.id}: the hooks are installed, but ${session.manifest.displayName} did not record its trust in them: ${(err as Error).message}`,
      { instance: session.id },
    );
  }
}

export interface UninstallReport extends Omit<UninstallResult, "createdDirs"> {
  instance: string;
  status: "uninstalled" | "planned" | "not-installed";
  recordFile: string;
  removedDirs: string[];
  /** Trust records an `install --trust-hooks` wrote that the client removed (a dry run: would remove). */
  untrusted: string[];
  /** Trust records left in the client's config because removing them failed (the error says why). */
  trustLeft: { keys: string[]; error: WireError } | null;
}

export async function uninstallAdapter(opts: InstallOptions): Promise<UninstallReport> {
  const env = opts.env ?? process.env;
  const config = await loadConfig({ config: opts.config, cwd: opts.cwd, env });
  const stateDir = stateDirFor(config.dir, env);
  const recordFile = installRecordPath(stateDir);
  const record = readRecord(recordFile); // fails closed before anything is touched
  const name = bare(opts.instance);
  const entry = record.adapters[name];
  const empty = {
    removed: [],
    restored: [],
    kept: [],
    missing: [],
    unchanged: [],
    removedDirs: [],
    untrusted: [],
    trustLeft: null,
  };
  if (!entry) return { instance: name, status: "not-installed", recordFile, ...empty };
  const keys = entry.trusted ?? [];
  const result = applyUninstall(entry, opts.dryRun === true);
  const { createdDirs, ...lists } = result;
  if (opts.dryRun)
    return {
      instance: name,
      status: "planned",
      recordFile,
      ...lists,
      removedDirs: [],
      untrusted: keys,
      trustLeft: null,
    };
  const trust = keys.length > 0 ? await removeTrust(opts, keys) : { untrusted: [], trustLeft: null };
  delete record.adapters[name];
  if (Object.keys(record.adapters).length === 0) {
    if (existsSync(recordFile)) unlinkSync(recordFile);
  } else {
    writeRecord(recordFile, record);
  }
  return {
    instance: name,
    status: "uninstalled",
    recordFile,
    ...lists,
    removedDirs: removeEmptyDirs(createdDirs),
    ...trust,
  };
}

/** Has the client remove the trust records `keys` (the adapter's untrustHooks()); a failure is reported, not thrown. */
async function removeTrust(
  opts: InstallOptions,
  keys: string[],
): Promise<Pick<UninstallReport, "untrusted" | "trustLeft">> {
  const env = opts.env ?? process.env;
  let session: AdapterSession | null = null;
  try {
    session = await openAdapter({ config: opts.config, cwd: opts.cwd, env, instance: opts.instance });
    const client = await detectClient(session, { useCache: false });
    const removed = await session.call<string[]>("untrustHooks", [adapterEnv(session, client), keys], 60_000);
    return { untrusted: keys.filter((k) => removed.includes(k)), trustLeft: null };
  } catch (err) {
    const error = toWire(
      pbError(
        "PB_ERR_HOOK_TRUST_FAILED",
        `adapters/${bare(opts.instance)}: the trust records install --trust-hooks wrote are still in the client's config (${keys.join(", ")}): ${(err as Error).message}`,
        { instance: `adapters/${bare(opts.instance)}` },
      ),
    );
    return { untrusted: [], trustLeft: { keys, error } };
  } finally {
    await session?.close();
  }
}
