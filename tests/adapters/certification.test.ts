/**
 * effectiveCapabilities: a declared capability stays true only with a passing capture for the
 * exact client version and platform whose fixture exists; everything else degrades to false,
 * each with a diagnostic. Method existence is never evidence.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defineAdapter, detectFromProbe, normalizedEvent, projectContext, type AdapterManifest } from "patchbay/adapter";
import { effectiveCapabilities, enabledKeys, loadCertification } from "../../src/adapter/certification.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";
import { makeCtx } from "../plugins/_ctx.js";

afterAll(cleanupTempDirs);

async function manifest(): Promise<AdapterManifest> {
  const a = defineAdapter({
    id: "cert", displayName: "Cert", client: { command: "cert" },
    capabilities: { guards: { beforeWrite: true }, context: { beforeTurnInjection: true }, delivery: { nextTurn: true } },
    create: () => ({
      detect: (p) => detectFromProbe(p), doctor: () => ({ ok: true, diagnostics: [] }),
      normalizeHook: () => normalizedEvent({ kind: "other", sessionId: "s", cwd: "/" }),
      renderContext: (i, o) => projectContext(i, o), planInstall: () => ({ artifacts: [] }),
      guardWrite: () => ({ decision: "allow" as const }), denyOutcome: () => ({ stdout: "x", stderr: "", exitCode: 0 }),
      injectOutcome: (t: string) => ({ stdout: t, stderr: "", exitCode: 0 }),
    }),
  });
  return (await a.create(a.config.parse({}), makeCtx().ctx)).manifest();
}

const entry = (capability: string, over: Record<string, unknown> = {}) => ({
  client: "cert", version: "2.1.0", platform: "linux-x64", observedAt: "2025-02-01", capability, fixture: "fixtures/cap.json", result: "pass", ...over,
});

function pluginDir(evidence: unknown[], opts: { raw?: string; fixture?: boolean } = {}): string {
  const dir = tempDir("pb-cert-");
  mkdirSync(path.join(dir, "fixtures"));
  if (opts.fixture !== false) writeFileSync(path.join(dir, "fixtures", "cap.json"), "{}");
  writeFileSync(path.join(dir, "certification.json"), opts.raw ?? JSON.stringify({ schemaVersion: 1, adapter: "cert", evidence }));
  return dir;
}

const client = { clientVersion: "2.1.0", platform: "linux-x64" };

describe("effectiveCapabilities", () => {
  it("keeps a capability only with a passing capture for that exact version and platform", async () => {
    const m = await manifest();
    const cert = loadCertification(pluginDir([entry("guards.beforeWrite"), entry("context.beforeTurnInjection", { version: "2.1.1" })]));
    const r = effectiveCapabilities({ manifest: m, certification: cert.certification }, client);
    expect(enabledKeys(r.effective)).toEqual(["guards.beforeWrite"]);
    expect(enabledKeys(r.declared)).toEqual(["context.beforeTurnInjection", "guards.beforeWrite", "delivery.nextTurn"]);
    expect(r.diagnostics.map((d) => [d.capability, d.code])).toEqual([["context.beforeTurnInjection", "no-evidence"], ["delivery.nextTurn", "no-evidence"]]);
    expect(r.diagnostics[0].message).toContain("certified: 2.1.1 linux-x64");
  });

  it("degrades on another platform, an unknown version, and a failed capture (which wins over a pass)", async () => {
    const m = await manifest();
    const cert = loadCertification(pluginDir([entry("guards.beforeWrite"), entry("guards.beforeWrite", { result: "fail" })])).certification;
    expect(enabledKeys(effectiveCapabilities({ manifest: m, certification: cert }, { clientVersion: "2.1.0", platform: "darwin-arm64" }).effective)).toEqual([]);
    const unknown = effectiveCapabilities({ manifest: m, certification: cert }, { clientVersion: null, platform: "linux-x64" });
    expect(enabledKeys(unknown.effective)).toEqual([]);
    expect(unknown.diagnostics.every((d) => d.code === "version-unknown")).toBe(true);
    const failed = effectiveCapabilities({ manifest: m, certification: cert }, client);
    expect(failed.diagnostics.find((d) => d.capability === "guards.beforeWrite")?.code).toBe("capture-failed");
  });

  it("treats a missing, unreadable or invalid certification.json as no evidence at all", async () => {
    const m = await manifest();
    for (const raw of ["{not json", JSON.stringify({ schemaVersion: 2, adapter: "cert", evidence: [] }), JSON.stringify({ schemaVersion: 1, adapter: "cert", evidence: [entry("guards.beforeThink")] })]) {
      const load = loadCertification(pluginDir([], { raw }));
      expect(load.certification).toBeNull();
      expect(load.diagnostics[0].code).toBe("certification-invalid");
      expect(enabledKeys(effectiveCapabilities({ manifest: m, certification: load.certification }, client).effective)).toEqual([]);
    }
    expect(loadCertification(tempDir()).diagnostics[0].code).toBe("no-certification");
  });

  it("ignores evidence whose fixture is not in the plugin folder", async () => {
    const m = await manifest();
    const load = loadCertification(pluginDir([entry("guards.beforeWrite")], { fixture: false }));
    expect(load.diagnostics[0].code).toBe("fixture-missing");
    expect(enabledKeys(effectiveCapabilities({ manifest: m, certification: load.certification }, client).effective)).toEqual([]);
  });

  it("never enables a capability the manifest declares false, and needs the backing methods callable", async () => {
    const m = await manifest();
    const cert = loadCertification(pluginDir([entry("guards.beforeRead"), entry("guards.beforeWrite")])).certification;
    const r = effectiveCapabilities({ manifest: m, certification: cert, callable: ["guardWrite"] }, client);
    expect(r.effective.guards.beforeRead).toBe(false);
    expect(r.effective.guards.beforeWrite).toBe(false);
    expect(r.diagnostics.find((d) => d.capability === "guards.beforeWrite")).toMatchObject({ code: "method-not-callable", message: expect.stringContaining("denyOutcome()") });
  });

  it("refuses evidence that belongs to another adapter", async () => {
    const m = await manifest();
    const other = loadCertification(pluginDir([], { raw: JSON.stringify({ schemaVersion: 1, adapter: "someone-else", evidence: [entry("guards.beforeWrite")] }) }));
    expect(enabledKeys(effectiveCapabilities({ manifest: m, certification: other.certification }, client).effective)).toEqual([]);
  });
});
