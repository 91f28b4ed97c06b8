/**
 * The adapters section of doctor: declared vs effective capabilities for the installed client,
 * each downgrade with its reason, the adapter's own diagnostics — and it changes nothing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { adapterDoctor } from "../../src/adapter/doctor.js";
import { diffSnapshots, snapshot } from "../../src/testing/adapter-sandbox.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";
import { makeWorld } from "./_world.js";

afterAll(cleanupTempDirs);

describe("adapterDoctor", () => {
  it("shows declared vs effective per adapter, with why each capability was downgraded, and writes nothing", async () => {
    const world = makeWorld({
      adapters: {
        example: { plugin: "example-adapter" },
        claude: { plugin: "claude-code" },
        broken: { plugin: "fx-bad-manifest" },
      },
    });
    const before = snapshot([world.home, world.project]);
    const report = await adapterDoctor({ config: world.configFile, env: world.env });
    expect(diffSnapshots(before, snapshot([world.home, world.project]))).toEqual([]);

    const [example, claude, broken] = report.adapters;
    expect(example).toMatchObject({
      instance: "adapters/example",
      client: { present: true, version: "1.0.0" },
      installed: false,
    });
    expect(example.effective).toEqual(example.declared);
    expect(example.diagnostics.map((d) => d.code)).toContain("not-wired");
    expect(claude).toMatchObject({ client: { command: "claude", present: true, version: "2.0.14" }, effective: [] });
    expect(claude.declared).toContain("guards.beforeWrite");
    expect(claude.downgrades.map((d) => d.code)).toEqual(new Array(claude.declared.length).fill("no-evidence"));
    expect(claude.downgrades[0].message).toContain("certified: 2.1.197 linux-x64");
    expect(broken.error).toMatchObject({ code: "PB_ERR_ADAPTER_MANIFEST_INVALID" });
    expect(report.checks.map((c) => c.ok)).toEqual([true, true, false]);
    expect(report.checks[1].detail).toContain(
      "downgraded: guards.beforeWrite: no passing capture for claude-code 2.0.14",
    );
  });

  it("`patchbay adapter doctor` prints the same, and says when a client is not installed", async () => {
    const world = makeWorld({ adapters: { example: { plugin: "example-adapter" } } });
    world.fakeClient("example", "example 2.0.0");
    const r = await world.cli(["adapter", "doctor", "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.adapters[0]).toMatchObject({ client: { version: "2.0.0" }, effective: [] });
    expect(doc.adapters[0].downgrades[0].message).toContain("certified: 1.0.0");
    const human = await world.cli(["adapter", "doctor"], { env: { PATH: "/usr/bin:/bin" } });
    expect(human.stdout).toContain("example not installed; Patchbay's hooks not installed");
    const unknown = await world.cli(["adapter", "doctor", "nosuch"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(
      /FAIL adapters\/nosuch .*No adapter instance "nosuch"[^\n]*\n\s+PB_ERR_ADAPTER_UNKNOWN\n\s+fix: Add the instance/,
    );
  });

  it("every bundled client's shipped evidence makes its capabilities effective for exactly the certified versions", async () => {
    const world = makeWorld({
      adapters: { claude: { plugin: "claude-code" }, codex: { plugin: "codex" }, gemini: { plugin: "gemini-cli" } },
    });
    const platform = `${process.platform}-${process.arch}`;
    const cases: [string, string, boolean][] = [
      ["claude", "2.1.197 (Claude Code)", true],
      ["codex", "codex-cli 0.169.0", true],
      ["codex", "codex-cli 0.171.0", true],
      ["gemini", "0.61.0", true],
      ["codex", "codex-cli 0.170.0", false],
      ["gemini", "0.60.0", false],
    ];
    for (const [command, output, certified] of cases) {
      world.fakeClient(command, output);
      const report = await adapterDoctor({
        config: world.configFile,
        env: { ...world.env, PATCHBAY_HOME: tempDir("pb-doctor-state-") },
      });
      const entry = report.adapters.find((a) => a.client?.command === command)!;
      expect(entry.declared.length, command).toBeGreaterThan(0);
      expect(entry.effective, `${output} on ${platform}`).toEqual(
        certified && platform === "linux-x64" ? entry.declared : [],
      );
    }
  }, 120_000);
});
