/**
 * Two configured plugin folders with one plugin name (SPEC: an error naming both folders): the
 * instance of that name is not started from either copy; its row says why, and boot exits 3.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { cleanupTempDirs, FIXTURE_PLUGINS, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

it("boot fails the instance of a plugin declared twice, naming both folders; list exits 2", async () => {
  const dir = tempDir("pb-dup-");
  for (const copy of ["a", "b"]) {
    const folder = path.join(dir, copy, "fx-twin");
    cpSync(path.join(FIXTURE_PLUGINS, "fx-echo"), folder, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(folder, "plugin.json"), "utf8"));
    writeFileSync(path.join(folder, "plugin.json"), JSON.stringify({ ...manifest, name: "fx-twin" }));
  }
  writeFileSync(
    path.join(dir, "connectors.json"),
    JSON.stringify({ plugins: ["./a", "./b"], mcpConnectors: { twin: { plugin: "fx-twin", config: { token: "t" } } } }),
  );
  const boot = await runCli(["boot", "--json"], { cwd: dir });
  expect(boot.code).toBe(3);
  const report = JSON.parse(boot.stdout) as {
    instances: { id: string; state: string; error: { code: string } | null }[];
  };
  expect(report.instances).toEqual([
    expect.objectContaining({
      id: "mcpConnectors/twin",
      state: "failed",
      error: expect.objectContaining({ code: "PB_ERR_PLUGIN_DUPLICATE" }),
    }),
  ]);
  const human = await runCli(["boot"], { cwd: dir });
  expect(human.stdout).toMatch(/mcpConnectors\/twin .*failed .*PB_ERR_PLUGIN_DUPLICATE/);
  expect(human.stdout).not.toMatch(/mcpConnectors\/twin .*ready/);
  expect(human.stderr).toContain('Plugin "fx-twin" is declared twice: in a/fx-twin and in b/fx-twin.');
  expect(human.stderr).toContain("mcpConnectors/twin: [PB_ERR_PLUGIN_DUPLICATE]");
  expect((await runCli(["list"], { cwd: dir })).code).toBe(2);
});
