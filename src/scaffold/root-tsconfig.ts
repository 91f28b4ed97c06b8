/**
 * The adopter's root tsconfig.json: most TypeScript projects type-check from the root (`npx tsc`,
 * the editor's project), and a root config that includes plugins/ must map "patchbay/plugin",
 * "patchbay/adapter" and "patchbay/testing" itself, as each scaffolded plugin's own tsconfig does:
 * the npm package is patchbay-host, so nothing named "patchbay/..." is in node_modules. The paths
 * point at this Patchbay's .d.ts files, relative, so the project can move. `patchbay init` writes
 * the file when the folder has none; an existing one is never edited, and the user gets the
 * `paths` block to add.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../paths.js";

export const ROOT_TSCONFIG_FILE = "tsconfig.json";

/** "patchbay/<name>" → the installed package's .d.ts, relative to `fromDir`, as tsconfig `paths` want it. */
export function patchbayTypePaths(fromDir: string): Record<string, [string]> {
  const rel = (...to: string[]): string => {
    const p = path
      .relative(fromDir, path.join(packageRoot(), ...to))
      .split(path.sep)
      .join("/");
    return p.startsWith(".") ? p : `./${p}`;
  };
  return {
    "patchbay/plugin": [rel("dist", "plugin.d.ts")],
    "patchbay/adapter": [rel("dist", "adapter-sdk", "index.d.ts")],
    "patchbay/testing": [rel("dist", "testing", "index.d.ts")],
  };
}

export function rootTsconfigText(dir: string): string {
  const config = {
    compilerOptions: {
      target: "ES2022",
      module: "preserve",
      moduleResolution: "bundler",
      lib: ["ES2023"],
      types: ["node"],
      strict: true,
      noEmit: true,
      paths: patchbayTypePaths(dir),
    },
    include: ["plugins/*/src", "plugins/*/tests"],
  };
  return [
    "// Written by `patchbay init`, for `npx tsc` and your editor (with typescript and @types/node in",
    '// the project). Plugins import "patchbay/plugin", "patchbay/adapter" and "patchbay/testing"; the',
    "// npm package is patchbay-host, so `paths` maps those names to its types. Patchbay never compiles",
    "// plugins (its worker loads src/index.ts), so this file changes nothing at run time.",
    JSON.stringify(config, null, 2),
    "",
  ].join("\n");
}

export type TsconfigSetup =
  | { state: "written"; file: string }
  | { state: "mapped"; file: string }
  | { state: "unmapped"; file: string; paths: Record<string, [string]> };

/** Writes tsconfig.json into `dir` unless one is there; says whether an existing one maps the names. */
export function ensureRootTsconfig(dir: string): TsconfigSetup {
  const file = path.join(dir, ROOT_TSCONFIG_FILE);
  if (existsSync(file)) {
    // A text check, not a parse: tsconfig is JSONC, and "mapped" only decides whether to advise.
    const text = readFileSync(file, "utf8");
    return ["plugin", "adapter", "testing"].every((n) => text.includes(`"patchbay/${n}"`))
      ? { state: "mapped", file }
      : { state: "unmapped", file, paths: patchbayTypePaths(dir) };
  }
  writeFileSync(file, rootTsconfigText(dir), { flag: "wx" });
  return { state: "written", file };
}

/** The exact lines to add to an existing tsconfig that does not map the names, or null. */
export function tsconfigAdvice(setup: TsconfigSetup): string | null {
  if (setup.state !== "unmapped") return null;
  const block = JSON.stringify(setup.paths, null, 2).split("\n").join("\n    ");
  return `${path.basename(setup.file)} exists and was left alone; for \`tsc\` to find "patchbay/*" from the root, add to its compilerOptions (merge with any "paths" it has):\n    "paths": ${block}`;
}
