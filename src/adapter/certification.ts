/**
 * Certification: a declared capability is effective only with a passing capture for the exact
 * client version and platform in the adapter's certification.json, whose fixture file exists in
 * the plugin folder. Method existence is never evidence. Anything unknown, unreadable or
 * mismatched degrades that capability to false, each with a diagnostic saying why; a failed
 * capture for the same version and platform wins over a passing one.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import {
  ADAPTER_CAPABILITIES, CAPABILITY_GROUPS, CAPABILITY_KEYS, CertificationSchema, capabilityRequires,
  type AdapterManifest, type CapabilityShape, type Certification, type Evidence,
} from "../adapter-sdk/contract.js";
import { isInside } from "../adapter-sdk/helpers.js";

export const CERTIFICATION_FILE = "certification.json";

export interface CapabilityDiagnostic {
  capability: string;
  code: "no-certification" | "version-unknown" | "no-evidence" | "capture-failed" | "method-not-callable" | "certification-invalid" | "fixture-missing";
  message: string;
}

export interface CertificationLoad {
  certification: Certification | null;
  diagnostics: CapabilityDiagnostic[];
}

/** "linux-x64", "darwin-arm64": the platform string evidence entries name. */
export function currentPlatform(): string {
  return `${process.platform}-${process.arch}`;
}

/** Reads <pluginDir>/certification.json; entries whose fixture is missing or outside the folder are dropped with a diagnostic. */
export function loadCertification(pluginDir: string): CertificationLoad {
  const file = path.join(pluginDir, CERTIFICATION_FILE);
  const fail = (code: CapabilityDiagnostic["code"], message: string): CertificationLoad => ({ certification: null, diagnostics: [{ capability: "*", code, message }] });
  if (!existsSync(file)) return fail("no-certification", `${file} does not exist: every capability counts as uncertified.`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    return fail("certification-invalid", `${file} is not valid JSON (${(err as Error).message}): every capability counts as uncertified.`);
  }
  const parsed = CertificationSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `/${i.path.join("/")}: ${i.message}`).join("; ");
    return fail("certification-invalid", `${file} is invalid (${detail}): every capability counts as uncertified.`);
  }
  const diagnostics: CapabilityDiagnostic[] = [];
  const root = realpathSync(pluginDir);
  const evidence = parsed.data.evidence.filter((e) => {
    const fixture = path.resolve(root, e.fixture);
    let real: string | null = null;
    try {
      real = realpathSync(fixture);
    } catch {
      real = null;
    }
    if (real && isInside(real, root)) return true;
    diagnostics.push({ capability: e.capability, code: "fixture-missing", message: `evidence for ${e.capability} (${e.client} ${e.version} ${e.platform}) names fixture ${e.fixture}, which is not a file in the plugin folder: entry ignored.` });
    return false;
  });
  return { certification: { ...parsed.data, evidence }, diagnostics };
}

export interface AdapterFacts {
  manifest: AdapterManifest;
  /** Parsed certification.json (null/undefined = none). */
  certification?: Certification | null;
  /** Methods the host may call on this instance (plugin.json "capabilities" plus the required ones); omitted = not checked. */
  callable?: readonly string[];
}

export interface EffectiveCapabilities {
  declared: CapabilityShape;
  effective: CapabilityShape;
  diagnostics: CapabilityDiagnostic[];
}

export function effectiveCapabilities(adapter: AdapterFacts, client: { clientVersion: string | null; platform: string }): EffectiveCapabilities {
  const { manifest } = adapter;
  const certification = adapter.certification ?? null;
  const diagnostics: CapabilityDiagnostic[] = [];
  const effective: Record<string, Record<string, boolean>> = {};
  const certName = manifest.client.certificationName;
  const foreign = certification && certification.adapter !== manifest.id;
  for (const group of CAPABILITY_GROUPS) {
    effective[group] = {};
    for (const name of Object.keys(ADAPTER_CAPABILITIES[group])) {
      const key = `${group}.${name}`;
      effective[group][name] = false;
      if (!(manifest.capabilities[group] as Record<string, boolean>)[name]) continue;
      const say = (code: CapabilityDiagnostic["code"], message: string) => diagnostics.push({ capability: key, code, message: `${key}: ${message}` });
      const missing = adapter.callable ? capabilityRequires(key).filter((m) => !adapter.callable!.includes(m)) : [];
      if (missing.length > 0) {
        say("method-not-callable", `declared true, but ${missing.map((m) => `${m}()`).join(", ")} ${missing.length === 1 ? "is" : "are"} not in plugin.json "capabilities", so the host may not call ${missing.length === 1 ? "it" : "them"}.`);
        continue;
      }
      if (!certification) {
        say("no-certification", "declared true, but the adapter ships no valid certification.json.");
        continue;
      }
      if (foreign) {
        say("certification-invalid", `certification.json belongs to adapter "${certification.adapter}", not "${manifest.id}".`);
        continue;
      }
      if (!client.clientVersion) {
        say("version-unknown", `declared true, but the installed ${certName} version is unknown.`);
        continue;
      }
      const forKey = certification.evidence.filter((e) => e.capability === key && e.client === certName);
      const exact = forKey.filter((e) => e.version === client.clientVersion && e.platform === client.platform);
      if (exact.some((e) => e.result === "fail")) {
        say("capture-failed", `the capture for ${certName} ${client.clientVersion} on ${client.platform} failed (${exact.find((e) => e.result === "fail")!.fixture}).`);
        continue;
      }
      if (!exact.some((e) => e.result === "pass")) {
        say("no-evidence", `no passing capture for ${certName} ${client.clientVersion} on ${client.platform}${describeOthers(forKey)}.`);
        continue;
      }
      effective[group][name] = true;
    }
  }
  return { declared: manifest.capabilities, effective: effective as unknown as CapabilityShape, diagnostics };
}

function describeOthers(entries: Evidence[]): string {
  const pass = [...new Set(entries.filter((e) => e.result === "pass").map((e) => `${e.version} ${e.platform}`))];
  return pass.length ? ` (certified: ${pass.join(", ")})` : " (no capture at all)";
}

/** `effective.guards.beforeWrite`, by key. */
export function capabilityOn(shape: CapabilityShape, key: string): boolean {
  const [g, c] = key.split(".");
  return (shape as unknown as Record<string, Record<string, boolean>>)[g]?.[c] === true;
}

/** ["guards.beforeWrite", ...]: the keys that are true in a shape. */
export function enabledKeys(shape: CapabilityShape): string[] {
  return CAPABILITY_KEYS.filter((k) => capabilityOn(shape, k));
}
