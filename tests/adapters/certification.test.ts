/**
 * effectiveCapabilities: a declared capability stays true only with a passing capture for the
 * exact client version and platform whose fixture exists; everything else degrades to false,
 * each with a diagnostic. Method existence is never evidence.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  defineAdapter,
  detectFromProbe,
  normalizedEvent,
  projectContext,
  type AdapterManifest,
} from "patchbay/adapter";
import { effectiveCapabilities, enabledKeys, loadCertification } from "../../src/adapter/certification.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";
import { makeCtx } from "../plugins/_ctx.js";

afterAll(cleanupTempDirs);

async function manifest(): Promise<AdapterManifest> {
  const a = defineAdapter({
    id: "cert",
    displayName: "Cert",
    client: { command: "cert" },
    capabilities: {
      guards: { beforeWrite: true },
      context: { beforeTurnInjection: true },
      delivery: { nextTurn: true },
    },
    create: () => ({
      detect: (p) => detectFromProbe(p),
      doctor: () => ({ ok: true, diagnostics: [] }),
      normalizeHook: () => normalizedEvent({ kind: "other", sessionId: "s", cwd: "/" }),
      renderContext: (i, o) => projectContext(i, o),
      planInstall: () => ({ artifacts: [] }),
      guardWrite: () => ({ decision: "allow" as const }),
      denyOutcome: () => ({ stdout: "x", stderr: "", exitCode: 0 }),
      injectOutcome: (t: string) => ({ stdout: t, stderr: "", exitCode: 0 }),
    }),
  });
  return (await a.create(a.config.parse({}), makeCtx().ctx)).manifest();
}

const KIND: Record<string, string> = {
  "guards.beforeWrite": "beforeTool",
  "guards.beforeRead": "beforeTool",
  "context.beforeTurnInjection": "beforeTurn",
  "delivery.nextTurn": "beforeTurn",
};

type Entry = Record<string, unknown> & { capability: string; version: string; platform: string; fixture?: string };

const entry = (capability: string, over: Record<string, unknown> = {}): Entry => ({
  client: "cert",
  version: "2.1.0",
  platform: "linux-x64",
  observedAt: "2025-02-01",
  capability,
  result: "pass",
  ...over,
});

/** A capture as `adapter certify` writes it, for one entry (its kind backs the entry's capability). */
function capture(e: Entry, over: Record<string, unknown> = {}): string {
  const kind = KIND[e.capability] ?? "other";
  return (
    JSON.stringify(
      {
        client: "cert",
        version: e.version,
        platform: e.platform,
        event: kind,
        kind,
        reaction: {},
        payload: {},
        ...over,
      },
      null,
      2,
    ) + "\n"
  );
}

/**
 * A plugin folder whose entries each get a real capture under fixtures/captures/ and its sha256,
 * unless the entry names its own fixture (then that file is used as it is, if it exists).
 */
function pluginDir(evidence: Entry[], opts: { raw?: string; fixture?: boolean } = {}): string {
  const dir = tempDir("pb-cert-");
  mkdirSync(path.join(dir, "fixtures"));
  const entries = evidence.map((e, i) => {
    if (e.fixture || opts.fixture === false)
      return { fixture: `fixtures/captures/${e.version}-${e.platform}/missing-${i}.json`, ...e };
    const rel = `fixtures/captures/${e.version}-${e.platform}/${i}-${e.capability}.json`;
    const body = capture(e);
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), body);
    return { fixture: rel, sha256: createHash("sha256").update(body).digest("hex"), ...e };
  });
  writeFileSync(
    path.join(dir, "certification.json"),
    opts.raw ?? JSON.stringify({ schemaVersion: 1, adapter: "cert", evidence: entries }),
  );
  return dir;
}

const client = { clientVersion: "2.1.0", platform: "linux-x64" };

describe("effectiveCapabilities", () => {
  it("keeps a capability only with a passing capture for that exact version and platform", async () => {
    const m = await manifest();
    const cert = loadCertification(
      pluginDir([entry("guards.beforeWrite"), entry("context.beforeTurnInjection", { version: "2.1.1" })]),
    );
    const r = effectiveCapabilities({ manifest: m, certification: cert.certification }, client);
    expect(enabledKeys(r.effective)).toEqual(["guards.beforeWrite"]);
    expect(enabledKeys(r.declared)).toEqual(["context.beforeTurnInjection", "guards.beforeWrite", "delivery.nextTurn"]);
    expect(r.diagnostics.map((d) => [d.capability, d.code])).toEqual([
      ["context.beforeTurnInjection", "no-evidence"],
      ["delivery.nextTurn", "no-evidence"],
    ]);
    expect(r.diagnostics[0].message).toContain("certified: 2.1.1 linux-x64");
  });

  it("degrades on another platform, an unknown version, and a failed capture (which wins over a pass)", async () => {
    const m = await manifest();
    const cert = loadCertification(
      pluginDir([entry("guards.beforeWrite"), entry("guards.beforeWrite", { result: "fail" })]),
    ).certification;
    expect(
      enabledKeys(
        effectiveCapabilities(
          { manifest: m, certification: cert },
          { clientVersion: "2.1.0", platform: "darwin-arm64" },
        ).effective,
      ),
    ).toEqual([]);
    const unknown = effectiveCapabilities(
      { manifest: m, certification: cert },
      { clientVersion: null, platform: "linux-x64" },
    );
    expect(enabledKeys(unknown.effective)).toEqual([]);
    expect(unknown.diagnostics.every((d) => d.code === "version-unknown")).toBe(true);
    const failed = effectiveCapabilities({ manifest: m, certification: cert }, client);
    expect(failed.diagnostics.find((d) => d.capability === "guards.beforeWrite")?.code).toBe("capture-failed");
  });

  it("treats a missing, unreadable or invalid certification.json as no evidence at all", async () => {
    const m = await manifest();
    for (const raw of [
      "{not json",
      JSON.stringify({ schemaVersion: 2, adapter: "cert", evidence: [] }),
      JSON.stringify({ schemaVersion: 1, adapter: "cert", evidence: [entry("guards.beforeThink")] }),
    ]) {
      const load = loadCertification(pluginDir([], { raw }));
      expect(load.certification).toBeNull();
      expect(load.diagnostics[0].code).toBe("certification-invalid");
      expect(
        enabledKeys(effectiveCapabilities({ manifest: m, certification: load.certification }, client).effective),
      ).toEqual([]);
    }
    expect(loadCertification(tempDir()).diagnostics[0].code).toBe("no-certification");
  });

  it("ignores evidence whose fixture is not in the plugin folder", async () => {
    const m = await manifest();
    const load = loadCertification(pluginDir([entry("guards.beforeWrite")], { fixture: false }));
    expect(load.diagnostics[0].code).toBe("fixture-missing");
    expect(
      enabledKeys(effectiveCapabilities({ manifest: m, certification: load.certification }, client).effective),
    ).toEqual([]);
  });

  it("checks every capture it names: a README, a changed file, another version or an unrelated event never certify", async () => {
    const m = await manifest();
    const dir = pluginDir([entry("guards.beforeWrite")]);
    const file = JSON.parse(readFileSync(path.join(dir, "certification.json"), "utf8")).evidence[0].fixture as string;
    const good = readFileSync(path.join(dir, file), "utf8");
    const rewrite = (over: Record<string, unknown>, body = good) => {
      const doc = JSON.parse(readFileSync(path.join(dir, "certification.json"), "utf8"));
      doc.evidence[0] = { ...doc.evidence[0], fixture: file, ...over };
      writeFileSync(path.join(dir, "certification.json"), JSON.stringify(doc));
      writeFileSync(path.join(dir, file), body);
      return loadCertification(dir);
    };
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    expect(
      enabledKeys(effectiveCapabilities({ manifest: m, certification: rewrite({}).certification }, client).effective),
    ).toEqual(["guards.beforeWrite"]);
    writeFileSync(path.join(dir, "README.md"), "# not a capture\n");
    const cases: [Record<string, unknown>, string | undefined, string][] = [
      [{ fixture: "README.md", sha256: sha("# not a capture\n") }, undefined, "not under fixtures/captures/"],
      [{}, good.replace("beforeTool", "beforeTooI"), "sha256 differs"],
      [{ sha256: undefined }, undefined, "without a sha256"],
      [
        { sha256: sha(capture(entry("guards.beforeWrite", { version: "2.0.0" }))) },
        capture(entry("guards.beforeWrite", { version: "2.0.0" })),
        "a capture of 2.0.0 linux-x64",
      ],
      [
        { sha256: sha(capture(entry("guards.beforeWrite"), { kind: "sessionEnd", event: "SessionEnd" })) },
        capture(entry("guards.beforeWrite"), { kind: "sessionEnd", event: "SessionEnd" }),
        "cannot back guards.beforeWrite",
      ],
    ];
    for (const [over, body, says] of cases) {
      const load = rewrite({ sha256: sha(good), ...over }, body ?? good);
      expect(load.diagnostics, says).toEqual([
        expect.objectContaining({ capability: "guards.beforeWrite", message: expect.stringContaining(says) }),
      ]);
      expect(load.diagnostics[0].message).toContain(path.join(dir, String(over.fixture ?? file)));
      expect(
        enabledKeys(effectiveCapabilities({ manifest: m, certification: load.certification }, client).effective),
      ).toEqual([]);
    }
  });

  it("adds the operator's local certification (.patchbay/certification/<adapter>/) without touching the plugin", async () => {
    const m = await manifest();
    const plugin = pluginDir([]);
    const local = pluginDir([entry("guards.beforeWrite", { version: "2.2.0" })]);
    const r = effectiveCapabilities(
      { manifest: m, certification: loadCertification(plugin, local).certification },
      { clientVersion: "2.2.0", platform: "linux-x64" },
    );
    expect(enabledKeys(r.effective)).toEqual(["guards.beforeWrite"]);
    expect(
      enabledKeys(
        effectiveCapabilities(
          { manifest: m, certification: loadCertification(plugin).certification },
          { clientVersion: "2.2.0", platform: "linux-x64" },
        ).effective,
      ),
    ).toEqual([]);
  });

  it("never enables a capability the manifest declares false, and needs the backing methods callable", async () => {
    const m = await manifest();
    const cert = loadCertification(pluginDir([entry("guards.beforeRead"), entry("guards.beforeWrite")])).certification;
    const r = effectiveCapabilities({ manifest: m, certification: cert, callable: ["guardWrite"] }, client);
    expect(r.effective.guards.beforeRead).toBe(false);
    expect(r.effective.guards.beforeWrite).toBe(false);
    expect(r.diagnostics.find((d) => d.capability === "guards.beforeWrite")).toMatchObject({
      code: "method-not-callable",
      message: expect.stringContaining("denyOutcome()"),
    });
  });

  it("refuses evidence that belongs to another adapter", async () => {
    const m = await manifest();
    const other = loadCertification(
      pluginDir([], {
        raw: JSON.stringify({ schemaVersion: 1, adapter: "someone-else", evidence: [entry("guards.beforeWrite")] }),
      }),
    );
    expect(
      enabledKeys(effectiveCapabilities({ manifest: m, certification: other.certification }, client).effective),
    ).toEqual([]);
  });
});
