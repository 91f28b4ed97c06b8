/**
 * Certification: a declared capability is effective only with a passing capture for the exact
 * client version and platform in the adapter's certification.json (or the operator's local one),
 * whose capture file is checked: present, same sha256, same version/platform, a related event.
 * Method existence is never evidence. Anything unknown, unreadable or mismatched degrades that
 * capability to false, each with a diagnostic saying why; a failed capture for the same version and
 * platform wins over a passing one.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import {
  ADAPTER_CAPABILITIES,
  CAPABILITY_GROUPS,
  CAPABILITY_KEYS,
  CertificationSchema,
  capabilityRequires,
  type AdapterManifest,
  type CapabilityShape,
  type Certification,
  type Evidence,
} from "../adapter-sdk/contract.js";
import { isInside } from "../adapter-sdk/helpers.js";
import { BACKING_KINDS } from "./certify/evidence.js";

export const CERTIFICATION_FILE = "certification.json";
/** Where captures live, relative to the folder of the certification.json that names them. */
export const CAPTURES_DIR = "fixtures/captures";

export interface CapabilityDiagnostic {
  capability: string;
  code:
    | "no-certification"
    | "version-unknown"
    | "no-evidence"
    | "capture-failed"
    | "method-not-callable"
    | "certification-invalid"
    | "fixture-missing"
    | "evidence-unverified";
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

/**
 * The operator's own certification of an adapter instance (written by `patchbay adapter certify`
 * for a bundled plugin): `<state>/certification/<instance>/certification.json` with its captures
 * beside it. It adds evidence; it never edits the installed package.
 */
export function localCertificationDir(stateDir: string, instance: string): string {
  return path.join(stateDir, "certification", instance);
}

/**
 * Reads <pluginDir>/certification.json, plus the local one when `localDir` has one. Every passing
 * entry is checked against its capture: the file exists under <folder>/fixtures/captures, its
 * sha256 matches, the capture names the entry's client version and platform, and its event can
 * back the capability. An entry that fails a check is dropped with a diagnostic naming the file.
 */
export function loadCertification(pluginDir: string, localDir?: string): CertificationLoad {
  const own = readOne(pluginDir);
  if (!localDir || !existsSync(path.join(localDir, CERTIFICATION_FILE))) return own;
  const local = readOne(localDir);
  const diagnostics = [...own.diagnostics.filter((d) => d.code !== "no-certification"), ...local.diagnostics];
  const base = own.certification ?? local.certification;
  if (!base) return { certification: null, diagnostics };
  if (local.certification && own.certification && local.certification.adapter !== own.certification.adapter) {
    diagnostics.push({
      capability: "*",
      code: "certification-invalid",
      message: `${path.join(localDir, CERTIFICATION_FILE)} is for adapter "${local.certification.adapter}", not "${own.certification.adapter}": ignored.`,
    });
    return { certification: own.certification, diagnostics };
  }
  return {
    certification: {
      ...base,
      evidence: [...(own.certification?.evidence ?? []), ...(local.certification?.evidence ?? [])],
    },
    diagnostics,
  };
}

function readOne(dir: string): CertificationLoad {
  const file = path.join(dir, CERTIFICATION_FILE);
  const fail = (code: CapabilityDiagnostic["code"], message: string): CertificationLoad => ({
    certification: null,
    diagnostics: [{ capability: "*", code, message }],
  });
  if (!existsSync(file))
    return fail("no-certification", `${file} does not exist: every capability counts as uncertified.`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    return fail(
      "certification-invalid",
      `${file} is not valid JSON (${(err as Error).message}): every capability counts as uncertified.`,
    );
  }
  const parsed = CertificationSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `/${i.path.join("/")}: ${i.message}`).join("; ");
    return fail("certification-invalid", `${file} is invalid (${detail}): every capability counts as uncertified.`);
  }
  const diagnostics: CapabilityDiagnostic[] = [];
  const root = realpathSync(dir);
  const evidence = parsed.data.evidence.filter((e) => {
    const problem = evidenceProblem(root, e);
    if (!problem) return true;
    const missing = problem.startsWith("not a file");
    diagnostics.push({
      capability: e.capability,
      code: missing ? "fixture-missing" : "evidence-unverified",
      message: `evidence for ${e.capability} (${e.client} ${e.version} ${e.platform}) names ${path.join(dir, e.fixture)}, which is ${problem}: entry ignored.`,
    });
    return false;
  });
  return { certification: { ...parsed.data, evidence }, diagnostics };
}

/** Why an entry's capture does not back it, or null. Failed entries need only exist (they can never enable). */
function evidenceProblem(root: string, e: Evidence): string | null {
  let real: string;
  try {
    real = realpathSync(path.resolve(root, e.fixture));
    if (!statSync(real).isFile()) return "not a file in the folder";
  } catch {
    return "not a file in the folder";
  }
  if (!isInside(real, root)) return "not a file in the folder";
  if (e.result !== "pass") return null;
  if (!isInside(real, path.join(root, CAPTURES_DIR)))
    return `not under ${CAPTURES_DIR}/ (a capture is the only evidence)`;
  const bytes = readFileSync(real);
  if (!e.sha256) return "named without a sha256";
  if (createHash("sha256").update(bytes).digest("hex") !== e.sha256)
    return "changed since it was certified (sha256 differs)";
  let capture: { client?: unknown; version?: unknown; platform?: unknown; kind?: unknown; event?: unknown };
  try {
    capture = JSON.parse(bytes.toString("utf8"));
  } catch {
    return "not a capture (not JSON)";
  }
  if (capture.version !== e.version || capture.platform !== e.platform)
    return `a capture of ${String(capture.version)} ${String(capture.platform)}, not ${e.version} ${e.platform}`;
  if (typeof capture.client === "string" && capture.client !== e.client)
    return `a capture of ${capture.client}, not ${e.client}`;
  const kinds = BACKING_KINDS[e.capability] ?? [];
  if (!kinds.includes(capture.kind as never))
    return `a capture of ${String(capture.event)} (${String(capture.kind)}), which cannot back ${e.capability}`;
  if (e.events && e.events.length > 0 && !e.events.includes(String(capture.event)))
    return `a capture of ${String(capture.event)}, not of ${e.events.join(", ")}`;
  return null;
}

export interface AdapterFacts {
  manifest: AdapterManifest;
  /** Parsed certification.json (null/undefined = none). */
  certification?: Certification | null;
  /**
   * Methods the host may call on this instance (plugin.json "capabilities" plus the required ones);
   * omitted = not checked.
   */
  callable?: readonly string[];
}

export interface EffectiveCapabilities {
  declared: CapabilityShape;
  effective: CapabilityShape;
  diagnostics: CapabilityDiagnostic[];
}

export function effectiveCapabilities(
  adapter: AdapterFacts,
  client: { clientVersion: string | null; platform: string },
): EffectiveCapabilities {
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
      const say = (code: CapabilityDiagnostic["code"], message: string) =>
        diagnostics.push({ capability: key, code, message: `${key}: ${message}` });
      const missing = adapter.callable ? capabilityRequires(key).filter((m) => !adapter.callable!.includes(m)) : [];
      if (missing.length > 0) {
        say(
          "method-not-callable",
          `declared true, but ${missing.map((m) => `${m}()`).join(", ")} ${missing.length === 1 ? "is" : "are"} not in plugin.json "capabilities", so the host may not call ${missing.length === 1 ? "it" : "them"}.`,
        );
        continue;
      }
      if (!certification) {
        say("no-certification", "declared true, but the adapter ships no valid certification.json.");
        continue;
      }
      if (foreign) {
        say(
          "certification-invalid",
          `certification.json belongs to adapter "${certification.adapter}", not "${manifest.id}".`,
        );
        continue;
      }
      if (!client.clientVersion) {
        say("version-unknown", `declared true, but the installed ${certName} version is unknown.`);
        continue;
      }
      const forKey = certification.evidence.filter((e) => e.capability === key && e.client === certName);
      const exact = forKey.filter((e) => e.version === client.clientVersion && e.platform === client.platform);
      if (exact.some((e) => e.result === "fail")) {
        say(
          "capture-failed",
          `the capture for ${certName} ${client.clientVersion} on ${client.platform} failed (${exact.find((e) => e.result === "fail")!.fixture}).`,
        );
        continue;
      }
      if (!exact.some((e) => e.result === "pass")) {
        say(
          "no-evidence",
          `no passing capture for ${certName} ${client.clientVersion} on ${client.platform}${describeOthers(forKey)}.`,
        );
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
