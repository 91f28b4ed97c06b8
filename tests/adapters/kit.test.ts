/**
 * The adapter conformance kit: what `patchbay plugin new adapter` scaffolds passes it unchanged,
 * the bundled adapters pass it (their own tests register it), and it fails an adapter that leaks
 * payload text, ignores its budget, or denies in a shape that looks like allow.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runAdapterConformance } from "patchbay/testing";
import { cleanupTempDirs, ROOT, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

describe("the adapter conformance kit", () => {
  it("passes what `patchbay plugin new adapter` scaffolds, unchanged", async () => {
    const dir = tempDir("pb-new-adapter-");
    const r = await runCli(["plugin", "new", "adapter", "acme-cli", "--dir", dir], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const pluginDir = path.join(dir, "acme-cli");
    expect(readFileSync(path.join(pluginDir, "src", "index.ts"), "utf8")).not.toMatch(/__[A-Z]+__/);
    const settings = JSON.parse(readFileSync(path.join(pluginDir, "test.config.json"), "utf8"));
    const results = await runAdapterConformance({ ...settings, pluginDir });
    expect(results.filter((c) => !c.ok)).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(13);
  });

  it("reports skipped, with the reason, a claim the adapter gives nothing to check, never passed", async () => {
    const pluginDir = path.join(tempDir("pb-bare-"), "bare");
    mkdirSync(path.join(pluginDir, "src"), { recursive: true });
    mkdirSync(path.join(pluginDir, "fixtures"));
    writeFileSync(
      path.join(pluginDir, "plugin.json"),
      JSON.stringify({
        name: "bare",
        version: "1.0.0",
        kind: "adapter",
        entry: "src/index.ts",
        patchbay: "^1",
        capabilities: [],
      }),
    );
    writeFileSync(
      path.join(pluginDir, "fixtures", "turn.json"),
      JSON.stringify({
        event: "turn",
        payload: { type: "turn", session: "s-1", cwd: "/w" },
        expect: { kind: "beforeTurn", sessionId: "s-1" },
      }),
    );
    writeFileSync(
      path.join(pluginDir, "src", "index.ts"),
      `
      import { defineAdapter, detectFromProbe, normalizedEvent, projectContext } from "patchbay/adapter";
      export default defineAdapter({
        id: "bare", displayName: "Bare", client: { command: "bare" },
        create: () => ({
          detect: (p) => detectFromProbe(p),
          doctor: () => ({ ok: true, diagnostics: [] }),
          normalizeHook: (p: any) => {
            if (!p || typeof p !== "object" || p.type !== "turn" || typeof p.session !== "string" || typeof p.cwd !== "string") throw new Error("not a bare payload");
            return normalizedEvent({ kind: "beforeTurn", sessionId: p.session, cwd: p.cwd });
          },
          renderContext: (input, opts) => projectContext(input, opts),
          planInstall: () => ({ artifacts: [] }),
        }),
      });`,
    );
    const results = await runAdapterConformance({ pluginDir });
    expect(results.filter((c) => !c.ok)).toEqual([]);
    const skipped = Object.fromEntries(results.filter((c) => c.skipped).map((c) => [c.claim, c.reason]));
    expect(skipped).toEqual({
      "denyOutcome and injectOutcome answer in the client's shape; inject('') writes nothing": expect.stringContaining(
        "neither denyOutcome nor injectOutcome",
      ),
      "hook commands written into client configs are absolute, exist, and exit 0 on a real payload":
        expect.stringContaining("writes no hook command"),
      "certification.json's evidence checks out: each capture exists under fixtures/captures, hash, version, platform and event match":
        expect.stringContaining("no certification.json"),
    });
  });

  it("fails an adapter whose certification names a capture that was edited since, naming the file (plugin test checks evidence)", async () => {
    const pluginDir = path.join(tempDir("pb-tampered-"), "claude-code");
    cpSync(path.join(ROOT, "plugins", "claude-code"), pluginDir, { recursive: true });
    const capture = path.join(pluginDir, "fixtures", "captures", "2.1.197-linux-x64", "04-PreToolUse-Write.json");
    writeFileSync(capture, readFileSync(capture, "utf8").replace('"blocked": true', '"blocked": true '));
    const results = await runAdapterConformance({
      pluginDir,
      config: {},
      clientVersionOutput: "2.1.197 (Claude Code)",
    });
    const evidence = results.find((c) => c.claim.startsWith("certification.json's evidence checks out"));
    expect(evidence).toMatchObject({ ok: false });
    expect(JSON.stringify(evidence)).toContain("04-PreToolUse-Write.json");
    expect(JSON.stringify(evidence)).toContain("sha256 differs");
  });

  it("fails an adapter that leaks payload text, overruns its budget, or denies like an allow", async () => {
    const pluginDir = path.join(tempDir("pb-leaky-"), "leaky");
    mkdirSync(path.join(pluginDir, "src"), { recursive: true });
    mkdirSync(path.join(pluginDir, "fixtures"));
    writeFileSync(
      path.join(pluginDir, "plugin.json"),
      JSON.stringify({
        name: "leaky",
        version: "1.0.0",
        kind: "adapter",
        entry: "src/index.ts",
        patchbay: "^1",
        capabilities: ["denyOutcome", "injectOutcome"],
      }),
    );
    writeFileSync(
      path.join(pluginDir, "fixtures", "turn.json"),
      JSON.stringify({
        event: "turn",
        payload: { session: "s-1", cwd: "/w", prompt: "the secret plan for friday" },
        expect: { kind: "beforeTurn" },
      }),
    );
    writeFileSync(
      path.join(pluginDir, "src", "index.ts"),
      `
      import { defineAdapter, detectFromProbe, normalizedEvent } from "patchbay/adapter";
      export default defineAdapter({
        id: "leaky", displayName: "Leaky", client: { command: "leaky" },
        create: () => ({
          detect: (p) => detectFromProbe(p),
          doctor: () => ({ ok: true, diagnostics: [] }),
          normalizeHook: (p: any) => normalizedEvent({ kind: "beforeTurn", sessionId: p.session, cwd: p.cwd, model: p.prompt ?? null }),
          renderContext: (input) => ({ text: input.messages.map((m) => m.body).join("\\n"), includedMessageIds: input.messages.map((m) => m.id) }),
          planInstall: () => ({ artifacts: [] }),
          denyOutcome: (r: string) => ({ stdout: "", stderr: r, exitCode: 0 }),
          injectOutcome: (t: string) => ({ stdout: t, stderr: "", exitCode: 0 }),
        }),
      });`,
    );
    const results = await runAdapterConformance({ pluginDir });
    const failed = Object.fromEntries(results.filter((c) => !c.ok).map((c) => [c.claim, c.reason]));
    expect(Object.keys(failed)).toEqual(
      expect.arrayContaining([
        "every fixture normalizes to its expected closed event, and nothing else of the payload survives",
        "denyOutcome and injectOutcome answer in the client's shape; inject('') writes nothing",
        "peer text is escaped, attributed and labelled untrusted",
        "budgets are respected from 120 to 1200 bytes: whole messages only, balanced fences, honest ids",
      ]),
    );
    expect(
      failed["every fixture normalizes to its expected closed event, and nothing else of the payload survives"],
    ).toContain("fixtures/turn.json: model");
    expect(failed["denyOutcome and injectOutcome answer in the client's shape; inject('') writes nothing"]).toContain(
      "must not look like an allow",
    );
  });
});
