/**
 * The adapters section of `patchbay doctor` (and `patchbay adapter doctor`): for each adapter
 * instance, the installed client and its version, declared vs effective capabilities with the
 * reason for every downgrade, the adapter's own doctor() diagnostics, and the install record.
 * Read-only: the client probe is not cached here and the adapter's doctor() must change nothing.
 */
import { toWire, type WireError } from "../errors.js";
import type { Diagnostic } from "../adapter-sdk/contract.js";
import { loadConfig } from "../config/load.js";
import {
  currentPlatform,
  effectiveCapabilities,
  enabledKeys,
  loadCertification,
  localCertificationDir,
  type CapabilityDiagnostic,
} from "./certification.js";
import { readRecord } from "./install/record.js";
import { adapterEnv, detectClient, openAdapter } from "./session.js";
import { installRecordPath, stateDirFor, type Env } from "./state.js";

/** Same shape as the checks `patchbay doctor` prints. */
export interface DoctorCheck {
  check: string;
  ok: boolean;
  detail: string;
  error: WireError | null;
}

export interface AdapterDoctorEntry {
  instance: string;
  plugin: string | null;
  client: { command: string; present: boolean; version: string | null; path: string | null } | null;
  platform: string;
  declared: string[];
  effective: string[];
  downgrades: CapabilityDiagnostic[];
  diagnostics: Diagnostic[];
  installed: boolean;
  error: WireError | null;
}

export interface AdapterDoctorReport {
  adapters: AdapterDoctorEntry[];
  checks: DoctorCheck[];
}

export interface AdapterDoctorOptions {
  config?: string;
  cwd?: string;
  env?: Env;
  /** Only these instances (default: every adapter in connectors.json). */
  instances?: string[];
}

export async function adapterDoctor(opts: AdapterDoctorOptions = {}): Promise<AdapterDoctorReport> {
  const env = opts.env ?? process.env;
  const config = await loadConfig({ config: opts.config, cwd: opts.cwd, env });
  const names =
    opts.instances?.map((i) => i.replace(/^adapters\//, "")) ??
    config.instances.filter((i) => i.section === "adapters").map((i) => i.name);
  let installed: string[] = [];
  let recordError: WireError | null = null;
  try {
    installed = Object.keys(readRecord(installRecordPath(stateDirFor(config.dir, env))).adapters);
  } catch (err) {
    recordError = toWire(err);
  }
  const adapters: AdapterDoctorEntry[] = [];
  for (const name of names) adapters.push(await inspectOne(name, opts, env, installed.includes(name)));
  const checks: DoctorCheck[] = adapters.map(toCheck);
  if (recordError)
    checks.push({ check: "adapter install record", ok: false, detail: recordError.message, error: recordError });
  return { adapters, checks };
}

async function inspectOne(
  name: string,
  opts: AdapterDoctorOptions,
  env: Env,
  installed: boolean,
): Promise<AdapterDoctorEntry> {
  const entry: AdapterDoctorEntry = {
    instance: `adapters/${name}`,
    plugin: null,
    client: null,
    platform: currentPlatform(),
    declared: [],
    effective: [],
    downgrades: [],
    diagnostics: [],
    installed,
    error: null,
  };
  let session;
  try {
    session = await openAdapter({ config: opts.config, cwd: opts.cwd, env, instance: name, logLevel: "silent" });
  } catch (err) {
    return { ...entry, error: toWire(err) };
  }
  try {
    entry.plugin = session.plugin.name;
    const client = await detectClient(session, { useCache: false });
    entry.client = {
      command: session.manifest.client.command,
      present: client.detect.present,
      version: client.detect.version,
      path: client.probe.path,
    };
    const cert = loadCertification(session.plugin.dir, localCertificationDir(session.stateDir, session.name));
    const caps = effectiveCapabilities(
      { manifest: session.manifest, certification: cert.certification, callable: session.callable },
      { clientVersion: client.detect.version, platform: entry.platform },
    );
    entry.declared = enabledKeys(caps.declared);
    entry.effective = enabledKeys(caps.effective);
    entry.downgrades = [...cert.diagnostics, ...caps.diagnostics];
    const doctor = await session.call<{ ok: boolean; diagnostics: Diagnostic[] }>("doctor", [
      adapterEnv(session, client),
    ]);
    entry.diagnostics = [...client.detect.diagnostics, ...doctor.diagnostics];
  } catch (err) {
    entry.error = toWire(err);
  } finally {
    await session.close();
  }
  return entry;
}

function toCheck(e: AdapterDoctorEntry): DoctorCheck {
  if (e.error) return { check: `${e.instance} (adapter)`, ok: false, detail: e.error.message, error: e.error };
  const client = e.client?.present
    ? `${e.client.command} ${e.client.version ?? "(version unknown)"}`
    : `${e.client?.command ?? "client"} not installed`;
  const caps = `declared: ${e.declared.join(", ") || "none"}; effective on ${e.platform}: ${e.effective.join(", ") || "none"}`;
  const why = e.downgrades.filter((d) => d.capability !== "*" || e.declared.length > 0).map((d) => d.message);
  const problems = e.diagnostics.filter((d) => d.level === "error").map((d) => d.message);
  return {
    check: `${e.instance} (${e.plugin})`,
    ok: problems.length === 0,
    detail: [
      `${client}; Patchbay's hooks ${e.installed ? "installed" : "not installed"}`,
      caps,
      ...why.map((w) => `downgraded: ${w}`),
      ...e.diagnostics.map((d) => `${d.level}: ${d.message}`),
    ].join("\n"),
    error: null,
  };
}
