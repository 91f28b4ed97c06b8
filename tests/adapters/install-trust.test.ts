/**
 * An adapter whose client waits for the user's consent says so at install: `adapter install codex`
 * reports, in human and JSON output (the dry run too), that Codex skips the hooks until trusted,
 * and the exact step. `--trust-hooks` is refused for a client with no trust step, and when the
 * client's tooling does not answer (a `codex` here that only prints a version) install reports
 * PB_ERR_HOOK_TRUST_FAILED with the hooks written and no trust recorded. The real Codex's trust
 * round trip is tests/adapters/real-codex.test.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs } from "../helpers.js";
import { makeWorld } from "./_world.js";

afterAll(cleanupTempDirs);

function codexWorld() {
  const w = makeWorld({ adapters: { codex: { plugin: "codex" }, fx: { plugin: "fx-adapter" } } });
  w.fakeClient("codex", "codex-cli 0.171.0");
  return w;
}

describe("adapter install codex: hooks Codex will not run yet", () => {
  it("says so, with the exact step, in --json and in the human output, and the dry run writes nothing", async () => {
    const w = codexWorld();
    const hooksFile = path.join(w.home, ".codex", "hooks.json");
    const dry = await w.cli(["adapter", "install", "codex", "--dry-run", "--json"]);
    expect(dry.code, dry.stderr).toBe(0);
    const planned = JSON.parse(dry.stdout).adapters[0];
    expect(planned.status).toBe("planned");
    expect(planned.inactive.reason).toMatch(/skips these hooks.*until you trust them/);
    expect(existsSync(hooksFile)).toBe(false);

    const r = await w.cli(["adapter", "install", "codex", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout).adapters[0];
    expect(report.status).toBe("installed");
    expect(report.trust).toBeNull();
    expect(report.inactive.step).toContain("open /hooks");
    expect(report.inactive.step).toContain("patchbay adapter install codex --trust-hooks");
    expect(readFileSync(hooksFile, "utf8")).toContain("PreToolUse");

    const human = await w.cli(["adapter", "install", "codex"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain("codex: unchanged");
    expect(human.stdout).toMatch(/INACTIVE: Codex skips these hooks/);
    expect(human.stdout).toContain("to activate: trust them in Codex");
  });

  it("--trust-hooks is refused for an adapter whose client has no trust step", async () => {
    const w = codexWorld();
    const r = await w.cli(["adapter", "install", "fx", "--trust-hooks", "--json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout).adapters[0];
    expect(report.error.code).toBe("PB_ERR_USAGE");
    expect(report.error.message).toContain("--trust-hooks is for a client that waits for consent");
  });

  it("a client whose app-server does not answer: PB_ERR_HOOK_TRUST_FAILED, hooks written, no trust recorded", async () => {
    const w = codexWorld();
    const r = await w.cli(["adapter", "install", "codex", "--trust-hooks", "--json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout).adapters[0];
    expect(report.status).toBe("failed");
    expect(report.error.code).toBe("PB_ERR_HOOK_TRUST_FAILED");
    expect(report.error.message).toMatch(/the hooks are installed, but Codex did not record its trust/);
    expect(report.inactive.step).toContain("--trust-hooks");
    expect(readFileSync(path.join(w.home, ".codex", "hooks.json"), "utf8")).toContain("PreToolUse");
    const record = JSON.parse(readFileSync(path.join(w.stateDir, "installs.json"), "utf8"));
    expect(record.adapters.codex.trusted).toBeUndefined();

    const human = await w.cli(["adapter", "install", "codex", "--trust-hooks"]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain("error PB_ERR_HOOK_TRUST_FAILED");
    expect(human.stdout).not.toMatch(/\n\s+at /); // no stack trace
  });
});
