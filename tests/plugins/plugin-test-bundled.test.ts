/**
 * `patchbay plugin test <name>` over every bundled plugin, by name, from a folder with no
 * connectors.json, as a new user runs it on a fresh clone: each plugin whose substrate is local
 * passes with its own test.config.json. The ones that need an outside service are skipped here,
 * by name, with the reason plugins/bundled.json gives; one whose fixture reads the service from a
 * variable (`needs_env`: postgres-memory's PATCHBAY_TEST_PG_URL, from .ci/postgres.sh) runs when
 * that variable is set.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, ROOT, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

const BUNDLED = JSON.parse(readFileSync(path.join(ROOT, "plugins", "bundled.json"), "utf8")) as {
  plugins: Record<string, { test_config: boolean; needs_env?: string; why?: string }>;
};
const entries = Object.entries(BUNDLED.plugins);
const runnable = ([, p]: (typeof entries)[number]) => p.test_config && (!p.needs_env || !!process.env[p.needs_env]);
const skipped = entries.filter((e) => !runnable(e));
for (const [name, { why, needs_env }] of skipped)
  console.warn(`[plugin test] SKIPPED ${name}: ${why}${needs_env ? ` (${needs_env} is not set)` : ""}`);

describe("patchbay plugin test, every bundled plugin", () => {
  it("skips only the plugins that need an outside service, and mcp-remote is not one of them", () => {
    const always = entries.filter(([, p]) => !p.test_config).map(([name]) => name);
    expect(always.sort()).toEqual(["http-webhook-agent", "ollama"]);
    const withService = entries.filter(([, p]) => p.needs_env).map(([name]) => name);
    expect(withService).toEqual(["postgres-memory"]);
    for (const [name, { why }] of skipped) expect(why, name).toMatch(/\w/);
  });

  it.each(entries.filter(runnable).map(([name]) => name))(
    "%s passes by name from a folder with no connectors.json",
    async (name) => {
      const needs = BUNDLED.plugins[name].needs_env;
      const r = await runCli(["plugin", "test", name, "--json"], {
        cwd: tempDir("pb-plugin-test-all-"),
        env: needs ? { [needs]: process.env[needs] ?? "" } : {},
        timeoutMs: 120_000,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as {
        ok: boolean;
        config_from: string;
        summary: { failed: number; passed: number };
      };
      expect(report).toMatchObject({ ok: true, config_from: path.join(ROOT, "plugins", name, "test.config.json") });
      expect(report.summary.failed).toBe(0);
      expect(report.summary.passed).toBeGreaterThan(0);
    },
  );
});
