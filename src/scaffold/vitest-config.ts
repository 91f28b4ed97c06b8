/**
 * The adopter's vitest config: plugin tests import "patchbay/testing" (and plugin code
 * "patchbay/plugin", "patchbay/adapter"), but the npm package is patchbay-host, so nothing named
 * "patchbay/..." exists in the adopter's node_modules. The host's worker maps those names itself
 * (jiti); vitest needs the same three aliases, pointing at the installed package's own exports so
 * they resolve to the one copy in node_modules. `patchbay init` writes this file; a project that
 * already has a vitest or vite config gets the lines to add instead.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export const VITEST_CONFIG_FILE = "vitest.config.mjs";

const CANDIDATES = ["vitest", "vite"].flatMap((base) =>
  ["ts", "mts", "cts", "js", "mjs", "cjs"].map((ext) => `${base}.config.${ext}`),
);

/** The alias entry, as a user adds it to an existing config's `resolve.alias`. */
export const VITEST_ALIAS = `{ find: /^patchbay\\/(plugin|adapter|testing)$/, replacement: "patchbay-host/$1" }`;

export function vitestConfigText(): string {
  return [
    '// Written by `patchbay init`. Plugins import "patchbay/plugin", "patchbay/adapter" and',
    '// "patchbay/testing"; the npm package is patchbay-host, so vitest maps those names to it.',
    'import { defineConfig } from "vitest/config";',
    "",
    "export default defineConfig({",
    `  resolve: { alias: [${VITEST_ALIAS}] },`,
    "});",
    "",
  ].join("\n");
}

export type VitestSetup =
  | { state: "written"; file: string }
  | { state: "mapped"; file: string }
  | { state: "unmapped"; file: string }
  | { state: "missing"; file: string };

/** What `dir` (the project folder) has: a config that maps the names, one that does not, or none. */
export function vitestSetup(dir: string): VitestSetup {
  for (const name of CANDIDATES) {
    const file = path.join(dir, name);
    if (existsSync(file))
      return { state: readFileSync(file, "utf8").includes("patchbay-host") ? "mapped" : "unmapped", file };
  }
  return { state: "missing", file: path.join(dir, VITEST_CONFIG_FILE) };
}

/** Writes vitest.config.mjs into `dir` unless a vitest or vite config is already there. */
export function ensureVitestConfig(dir: string): VitestSetup {
  const found = vitestSetup(dir);
  if (found.state !== "missing") return found;
  writeFileSync(found.file, vitestConfigText(), { flag: "wx" });
  return { state: "written", file: found.file };
}

/** One line for a project whose vitest cannot resolve "patchbay/testing", or null when it can. */
export function vitestAdvice(setup: VitestSetup): string | null {
  if (setup.state === "unmapped")
    return `${path.basename(setup.file)} does not map "patchbay/*": add ${VITEST_ALIAS} to its resolve.alias so vitest finds patchbay/testing.`;
  if (setup.state === "missing")
    return `no vitest config maps "patchbay/*" yet: \`patchbay init\` writes one (${VITEST_CONFIG_FILE}), or add ${VITEST_ALIAS} to your config's resolve.alias.`;
  return null;
}
