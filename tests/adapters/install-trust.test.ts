/**
 * An adapter whose client waits for the user's consent says so at install: `adapter install codex`
 * reports, in human and JSON output (the dry run too), that Codex skips the hooks until trusted,
 * and the exact step. `--trust-hooks` has nothing to do for a client with no trust step (it says so
 * and installs), and when the client's tooling does not answer (a `codex` here that only prints a
 * version) install reports PB_ERR_HOOK_TRUST_FAILED with the hooks written and no trust recorded;
 * uninstall still removes the files when the client cannot remove the trust records, names the
 * records left and exits 1. The real Codex's trust round trip is tests/adapters/real-codex.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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
    const dryTrust = await w.cli(["adapter", "install", "codex", "--dry-run", "--trust-hooks"]);
    expect(dryTrust.code, dryTrust.stderr).toBe(0);
    expect(dryTrust.stdout).toContain("note: --trust-hooks: after the write, the client would be asked");
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

  it("--trust-hooks on an adapter whose client has no trust step installs it and says the flag had nothing to do", async () => {
    const w = codexWorld();
    const r = await w.cli(["adapter", "install", "fx", "--trust-hooks", "--json"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout).adapters[0];
    expect(report).toMatchObject({ status: "installed", trust: null, inactive: null });
    expect(report.notes).toEqual([expect.stringMatching(/^--trust-hooks: .* runs the hooks without a trust step/)]);
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

  it("uninstall removes the files even when the client cannot remove its trust records, and names them", async () => {
    const w = codexWorld();
    expect((await w.cli(["adapter", "install", "codex"])).code).toBe(0);
    // As an earlier --trust-hooks against a working Codex would have left the record.
    const recordFile = path.join(w.stateDir, "installs.json");
    const record = JSON.parse(readFileSync(recordFile, "utf8"));
    const key = `${path.join(w.home, ".codex", "hooks.json")}:pre_tool_use:0:0`;
    record.adapters.codex.trusted = [key];
    writeFileSync(recordFile, JSON.stringify(record));
    const dry = JSON.parse((await w.cli(["adapter", "uninstall", "codex", "--dry-run", "--json"])).stdout);
    expect(dry.adapters[0]).toMatchObject({ status: "planned", untrusted: [key], trustLeft: null });

    const r = await w.cli(["adapter", "uninstall", "codex", "--json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout).adapters[0];
    expect(report.status).toBe("uninstalled");
    expect(report.untrusted).toEqual([]);
    expect(report.trustLeft.keys).toEqual([key]);
    expect(report.trustLeft.error.code).toBe("PB_ERR_HOOK_TRUST_FAILED");
    expect(report.trustLeft.error.message).toContain(key);
    expect(existsSync(path.join(w.home, ".codex", "hooks.json"))).toBe(false);
    expect(existsSync(recordFile)).toBe(false);
  });
});
