/**
 * What `npm pack` puts in the tarball (the files list, read by npm itself): what runs, and
 * nothing that only this repository needs. .ci/pack-install.sh then installs the real tarball
 * outside the repository; this is the quick check that fails first.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));

describe("the published package", () => {
  it("holds dist/, the bins, bundled plugins, templates, schemas and docs, and no tests, bench, CI files, sources or source maps", () => {
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
    for (const needed of [
      "package.json",
      "README.md",
      "bin/patchbay.mjs",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/cli-bundle/main.js",
      "dist/runtime/entry.js",
      "plugins/sqlite-memory/plugin.json",
      "plugins/claude-code/certification.json",
      "templates/mcp/plugin.json",
      "schemas/connectors.schema.json",
      "docs/errors.md",
    ]) {
      expect(files, needed).toContain(needed);
    }
    const stray = files.filter(
      (f) =>
        /^(tests|bench|\.ci|src|scripts)\//.test(f) ||
        /^plugins\/[^/]+\/tests\//.test(f) ||
        f.endsWith(".map") ||
        /^(tsconfig|vitest\.config)/.test(f),
    );
    expect(stray).toEqual([]);
  });

  it("names both commands, builds in prepack, and says which Node lines it supports", () => {
    expect(pkg.bin).toEqual({ patchbay: "bin/patchbay.mjs", "patchbay-host": "bin/patchbay.mjs" });
    expect(pkg.scripts.prepack).toMatch(/(^|&& )npm run build$/);
    expect(pkg.engines.node).toBe("^20.19.0 || ^22.12.0 || >=24.0.0");
  });
});
