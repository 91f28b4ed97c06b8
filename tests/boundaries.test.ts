/**
 * Keeps the import rules of ARCHITECTURE.md true: a stage imports only leaves and stages before
 * it; the worker program imports leaves only. Fails on a missing or empty stage folder, so it
 * cannot pass on nothing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";

const SRC = path.join(ROOT, "src");

/** Rank of each stage; a file may import files of the same or a lower rank. */
const RANKS: Record<string, number> = {
  leaf: 0,
  config: 1,
  scaffold: 1,
  discovery: 2,
  rpc: 3,
  spawn: 4,
  registry: 5,
  guard: 6,
  host: 7,
  adapter: 8,
  testing: 8,
  gateway: 8,
  cli: 9,
};
const LEAF_FILES = ["errors.ts", "log.ts", "secrets.ts", "paths.ts", "plugin.ts"];
/** errors/ holds the parts errors.ts re-exports (the catalogue, the class, the wire form). */
const LEAF_FOLDERS = ["contract", "adapter-sdk", "errors"];
const HOST_FILES = ["index.ts"];

function stageOf(rel: string): string {
  const [top] = rel.replace(/\.js$/, ".ts").split(path.sep);
  if (LEAF_FOLDERS.includes(top) || LEAF_FILES.includes(top)) return "leaf";
  if (HOST_FILES.includes(top)) return "host";
  return top;
}

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts"))
    .map((f) => path.join(dir, f));
}

function relativeImports(text: string): string[] {
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)].map((m) => m[1]);
}

/** The rule violations of one source file, `rel` being its path under src/ and `text` its source. */
function importViolations(rel: string, text: string): string[] {
  const violations: string[] = [];
  const from = stageOf(rel);
  if (from === "worker") return violations;
  expect(RANKS[from], `${rel}: unknown stage "${from}"; add it to RANKS and ARCHITECTURE.md`).toBeDefined();
  for (const spec of relativeImports(text)) {
    const target = path.relative(SRC, path.resolve(path.dirname(path.join(SRC, rel)), spec));
    const to = stageOf(target);
    if (to === "worker" && from === "spawn") continue; // spawn names the worker's entry file, it never imports it
    if (to === "worker" || RANKS[to] > RANKS[from]) violations.push(`${rel} (${from}) imports ${target} (${to})`);
  }
  return violations;
}

describe("import boundaries", () => {
  it("has every stage folder, none empty", () => {
    for (const stage of [
      "contract",
      "config",
      "discovery",
      "rpc",
      "guard",
      "spawn",
      "registry",
      "host",
      "worker",
      "cli",
      "testing",
    ]) {
      const dir = path.join(SRC, stage);
      expect(existsSync(dir) && statSync(dir).isDirectory(), `src/${stage} is missing`).toBe(true);
      expect(filesUnder(dir).length, `src/${stage} is empty`).toBeGreaterThan(0);
    }
  });

  it("stages import only leaves and earlier stages", () => {
    const violations = filesUnder(SRC).flatMap((file) =>
      importViolations(path.relative(SRC, file), readFileSync(file, "utf8")),
    );
    expect(violations).toEqual([]);
  });

  it("the worker program imports leaves and itself only", () => {
    const violations: string[] = [];
    const files = filesUnder(path.join(SRC, "worker"));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      for (const spec of relativeImports(readFileSync(file, "utf8"))) {
        const target = path.relative(SRC, path.resolve(path.dirname(file), spec));
        const to = stageOf(target);
        if (to !== "leaf" && to !== "worker") violations.push(`${path.relative(SRC, file)} imports ${target}`);
        const errorsOrContract = ["contract", "errors"].some((dir) => target.startsWith(dir + path.sep));
        if (to === "leaf" && !errorsOrContract && !target.startsWith("errors."))
          violations.push(`${path.relative(SRC, file)} imports ${target}: the worker may use errors and contract only`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("the public entry uses named exports, never export *", () => {
    for (const entry of [
      "index.ts",
      "plugin.ts",
      path.join("adapter-sdk", "index.ts"),
      path.join("testing", "index.ts"),
    ]) {
      expect(readFileSync(path.join(SRC, entry), "utf8")).not.toMatch(/export \* from/);
    }
  });

  it("catches a planted violation (the check is not vacuous)", () => {
    // The same check the real files go through, on a config file that imports the CLI, the worker and a leaf.
    const planted = [
      'import { main } from "../cli/main.js";',
      'import("../worker/serve.js");',
      'import { pbError } from "../errors.js";',
    ].join("\n");
    expect(importViolations(path.join("config", "planted.ts"), planted)).toEqual([
      `${path.join("config", "planted.ts")} (config) imports ${path.join("cli", "main.js")} (cli)`,
      `${path.join("config", "planted.ts")} (config) imports ${path.join("worker", "serve.js")} (worker)`,
    ]);
  });
});
