/**
 * What certify records: the capture files (sandbox paths replaced by a placeholder, named by
 * sha256) and one evidence entry per declared capability, written into certification.json in
 * place of the same client version and platform's earlier entries.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CertificationSchema, type Certification, type Evidence } from "../../adapter-sdk/contract.js";
import { CAPTURES_DIR } from "../certification.js";
import { sha256 } from "../install/hash.js";
import { checkCapability, type Capture } from "./evidence.js";

export interface CertifyReport {
  adapter: string;
  client: string;
  version: string;
  platform: string;
  /** The folder certification.json is (or would be) written in. */
  target: string;
  entries: Evidence[];
  captures: { file: string; event: string; kind: string | null; sha256: string }[];
  written: boolean;
}

/** Capture files (sandbox paths replaced by a placeholder) and one evidence entry per declared capability. */
export function evidenceFor(
  captures: Capture[],
  facts: { certName: string; version: string; platform: string; declared: unknown; root: string },
): CertifyReport {
  const dir = `${CAPTURES_DIR}/${facts.version}-${facts.platform}`;
  const files = captures.map((c) => {
    const body =
      JSON.stringify(
        {
          client: facts.certName,
          version: facts.version,
          platform: facts.platform,
          event: c.event,
          tool: c.tool,
          kind: c.kind,
          reaction: c.reaction,
          normalized: c.normalized,
          payload: c.payload,
        },
        null,
        2,
      )
        .split(facts.root)
        .join("/sandbox")
        .split(facts.root.replace(/[^A-Za-z0-9]/g, "-"))
        .join("-sandbox") + "\n";
    return { capture: c, file: `${dir}/${c.name}`, body, sha256: sha256(body) };
  });
  const observedAt = new Date().toISOString().slice(0, 10);
  const entries: Evidence[] = [];
  const shape = facts.declared as Record<string, Record<string, boolean>>;
  for (const [group, caps] of Object.entries(shape)) {
    for (const [name, on] of Object.entries(caps)) {
      if (!on) continue;
      const capability = `${group}.${name}`;
      const verdict = checkCapability(
        capability,
        files.map((f) => f.capture),
      );
      // A failed entry with no related capture points at the run's first one: failures stay on
      // record (they can never enable).
      const backing =
        (verdict.capture ? files.find((f) => f.capture === verdict.capture) : null) ??
        (verdict.pass ? null : (files[0] ?? null));
      if (!backing) continue;
      entries.push({
        client: facts.certName,
        version: facts.version,
        platform: facts.platform,
        observedAt,
        capability,
        fixture: backing.file,
        sha256: backing.sha256,
        events: [backing.capture.event],
        result: verdict.pass ? "pass" : "fail",
        notes: verdict.notes,
      } as Evidence);
    }
  }
  return {
    adapter: "",
    client: "",
    version: facts.version,
    platform: facts.platform,
    target: "",
    entries,
    captures: files.map((f) => ({
      file: f.file,
      event: f.capture.event,
      kind: f.capture.kind,
      sha256: f.sha256,
      body: f.body,
    })) as CertifyReport["captures"],
    written: false,
  };
}

/** Writes the capture files and replaces this client version/platform's entries in certification.json. */
export function writeEvidence(
  target: string,
  adapterId: string,
  report: CertifyReport,
  version: string,
  platform: string,
): void {
  const capDir = path.join(target, CAPTURES_DIR, `${version}-${platform}`);
  rmSync(capDir, { recursive: true, force: true });
  mkdirSync(capDir, { recursive: true });
  for (const c of report.captures as (CertifyReport["captures"][number] & { body: string })[])
    writeFileSync(path.join(target, c.file), c.body);
  const file = path.join(target, "certification.json");
  let current: Certification = { schemaVersion: 1, adapter: adapterId, evidence: [] };
  if (existsSync(file)) {
    const parsed = CertificationSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (parsed.success) current = parsed.data;
  }
  const kept = current.evidence.filter((e) => !(e.version === version && e.platform === platform));
  writeFileSync(file, JSON.stringify({ ...current, evidence: [...kept, ...report.entries] }, null, 2) + "\n");
}
