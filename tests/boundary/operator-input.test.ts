/**
 * Operator input at scale and at the edges: a 10 MB connectors.json gets its coded answer from
 * `doctor` without walking every entry first, a file at the instance limit is answered without a
 * per-instance search, and every malformed instance name gets a coded config error (exit 2) with
 * its pointer, never PB_ERR_INTERNAL. Real CLI runs on real files.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_INSTANCES } from "../../src/config/size.js";
import { cleanupTempDirs, FIXTURE_PLUGINS, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

function writeRaw(json: string): { dir: string; file: string } {
  const dir = tempDir("pb-opin-");
  const file = path.join(dir, "connectors.json");
  writeFileSync(file, json);
  return { dir, file };
}

const entries = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `"inst${i}":{"plugin":"no-such-plugin","config":{"url":"http://127.0.0.1:1/x"}}`,
  ).join(",");

describe("connectors.json at scale", () => {
  it("a 10 MB file of 140,000 instances naming an unknown plugin gets PB_ERR_CONFIG_TOO_LARGE, exit 2", async () => {
    const { dir, file } = writeRaw(`{"mcpConnectors":{${entries(140_000)}}}`);
    const r = await runCli(["doctor", "--config", file], { cwd: dir, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr + r.stdout).toContain("PB_ERR_CONFIG_TOO_LARGE");
    expect(r.stderr + r.stdout).toContain("140000 instances");
  }, 150_000);

  it(`a file at the limit (${MAX_INSTANCES} instances) gets every instance's own coded answer`, async () => {
    const { dir, file } = writeRaw(`{"mcpConnectors":{${entries(MAX_INSTANCES)}}}`);
    const r = await runCli(["doctor", "--json", "--config", file], { cwd: dir, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(2);
    const doc = JSON.parse(r.stdout) as { checks: { error: { code: string } | null }[] };
    expect(doc.checks.filter((c) => c.error?.code === "PB_ERR_CONFIG_UNKNOWN_PLUGIN")).toHaveLength(MAX_INSTANCES);
  }, 150_000);
});

const BAD_NAMES: [string, string][] = [
  ["empty", ""],
  ["a slash", "a/b"],
  ["a traversal", "../x"],
  ["a backslash", "a\\b"],
  ["__proto__", "__proto__"],
  ["constructor", "constructor"],
  ["prototype", "prototype"],
  ["10,000 characters", "n".repeat(10_000)],
  ["unicode", "caf\u00e9"],
  ["right-to-left override", "a\u202eb"],
  ["a NUL", "a\u0000b"],
  ["a newline", "a\nb"],
  ["an escape", "a\u001bb"],
  ["a space", " "],
  ["a dot", "."],
  ["two dots", ".."],
  ["a leading dash", "-a"],
];

describe("malformed instance names", () => {
  it.each(BAD_NAMES)(
    "%s gets a coded config error (exit 2), never PB_ERR_INTERNAL",
    async (_what, name) => {
      const { dir, file } = writeRaw(
        JSON.stringify({ plugins: [FIXTURE_PLUGINS], mcpConnectors: { [name]: { plugin: "fx-echo" } } }),
      );
      const r = await runCli(["doctor", "--json", "--config", file], { cwd: dir, timeoutMs: 60_000 });
      const out = r.stdout + r.stderr;
      expect(out).not.toContain("PB_ERR_INTERNAL");
      expect(r.code, out).toBe(2);
      expect(out).toMatch(/PB_ERR_CONFIG_[A-Z_]+/);
    },
    90_000,
  );
});
