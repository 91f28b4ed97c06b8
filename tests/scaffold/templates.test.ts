/**
 * The proof that templates cannot drift from the contracts: every kind with a template is
 * scaffolded by the real `patchbay plugin new` into one temp project, wired with a two-line
 * connectors.json entry, and then, unchanged, (1) type-checks against this build's
 * dist/plugin.d.ts, (2) boots, (3) passes `patchbay plugin test <name>` with every claim, and
 * (4) passes its own generated vitest test. One scaffold is shared by every claim to keep the
 * suite quick.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECTION_OF_KIND, type Kind } from "../../src/contract/kinds.js";
import { templateKinds } from "../../src/scaffold/scaffold.js";
import { KIT_KINDS } from "../../src/testing/types.js";
import { cleanupTempDirs, ROOT, runCli, tempDir } from "../helpers.js";

const KINDS = templateKinds();
const nameOf = (kind: Kind) => `my-${kind}`;
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
const VITEST = path.join(ROOT, "node_modules", "vitest", "vitest.mjs");
const DIST = path.join(ROOT, "dist");

let project: string;
const folderOf = (kind: Kind) => path.join(project, "plugins", nameOf(kind));

/** A child process with a clean environment (no VITEST_* leaking from the runner into the nested run). */
function run(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs = 120_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [command, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `${path.basename(command)} ${args.join(" ")} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function filesUnder(dir: string): string[] {
  return (
    readdirSync(dir, { recursive: true, withFileTypes: true }) as {
      name: string;
      parentPath: string;
      isFile(): boolean;
    }[]
  )
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

beforeAll(async () => {
  project = tempDir("pb-templates-");
  // The user's path exactly: `plugin new` with the default --dir, then a connectors.json that names each plugin and nothing else.
  const created = await Promise.all(
    KINDS.map((kind) => runCli(["plugin", "new", kind, nameOf(kind), "--json"], { cwd: project })),
  );
  created.forEach((r, i) => {
    expect(r.code, `plugin new ${KINDS[i]}: ${r.stderr}`).toBe(0);
  });
  const connectors: Record<string, Record<string, { plugin: string }>> = {};
  for (const kind of KINDS) (connectors[SECTION_OF_KIND[kind]] ??= {})[nameOf(kind)] = { plugin: nameOf(kind) };
  writeFileSync(path.join(project, "connectors.json"), JSON.stringify(connectors, null, 2));
});

afterAll(cleanupTempDirs);

describe("every template, scaffolded by the real patchbay plugin new", () => {
  it("covers every connector kind", () => {
    expect(KINDS).toEqual(expect.arrayContaining(["memory-store", "local-model", "mcp", "agent", "skill-store"]));
  });

  it("writes a complete plugin folder with every placeholder filled", () => {
    for (const kind of KINDS) {
      const dir = folderOf(kind);
      const files = filesUnder(dir).map((f) => path.relative(dir, f).split(path.sep).join("/"));
      expect(files, kind).toEqual(
        expect.arrayContaining([
          "plugin.json",
          "src/index.ts",
          "tests/conformance.test.ts",
          "test.config.json",
          "README.md",
        ]),
      );
      for (const file of filesUnder(dir)) {
        expect(readFileSync(file, "utf8"), `${kind}: ${path.relative(dir, file)} keeps a placeholder`).not.toMatch(
          /__[A-Z][A-Z_]*__/,
        );
      }
      expect(JSON.parse(readFileSync(path.join(dir, "plugin.json"), "utf8"))).toMatchObject({
        name: nameOf(kind),
        kind,
      });
      const readme = readFileSync(path.join(dir, "README.md"), "utf8");
      expect(readme, `${kind}: README shows the connectors.json entry`).toContain(`"${SECTION_OF_KIND[kind]}"`);
    }
  });

  it("(1) type-checks against patchbay/plugin (dist/plugin.d.ts), with the folder's own tsconfig.json and its scaffolded paths", async () => {
    const projects = KINDS.map((kind) => {
      const file = path.join(folderOf(kind), "tsconfig.proof.json");
      // Only where @types/node is: "patchbay/plugin" must resolve through the paths `plugin new` wrote
      // (the package is patchbay-host, so no node_modules/patchbay can supply it).
      writeFileSync(
        file,
        JSON.stringify({
          extends: "./tsconfig.json",
          compilerOptions: { typeRoots: [path.join(ROOT, "node_modules", "@types")] },
        }),
      );
      return file;
    });
    // Build mode checks every folder in one process (one load of lib and @types), about 4x faster than one tsc each.
    const r = await run(TSC, ["-b", ...projects, "--listFiles"], project);
    expect(
      r.code,
      `tsc\n${r.stdout
        .split("\n")
        .filter((l) => l.includes("error"))
        .join("\n")}${r.stderr}`,
    ).toBe(0);
    // Proves each folder's import resolved to this build, not to some other copy of Patchbay.
    expect(r.stdout.split("\n").filter((l) => l === path.join(DIST, "plugin.d.ts")).length).toBe(KINDS.length);
  }, 240_000);

  it("(2) boots when a two-line connectors.json entry names it", async () => {
    const r = await runCli(["boot", "--json"], { cwd: project, timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.instances.map((i: { id: string; state: string }) => `${i.id}:${i.state}`).sort()).toEqual(
      KINDS.map((k) => `${SECTION_OF_KIND[k]}/${nameOf(k)}:ready`).sort(),
    );
  }, 180_000);

  it("(3) passes `patchbay plugin test <name>`, every claim, with its test.config.json though connectors.json wires it", async () => {
    const kinds = KINDS;
    expect(kinds).toEqual(expect.arrayContaining([...KIT_KINDS]));
    const results = await Promise.all(
      kinds.map((kind) => runCli(["plugin", "test", nameOf(kind), "--json"], { cwd: project, timeoutMs: 180_000 })),
    );
    results.forEach((r, i) => {
      const kind = kinds[i];
      const doc = JSON.parse(r.stdout);
      const failed = doc.claims.filter((c: { ok: boolean }) => !c.ok);
      expect(failed, `${kind}: ${JSON.stringify(failed, null, 2)}`).toEqual([]);
      expect(r.code, kind).toBe(0);
      expect(doc.ok).toBe(true);
      expect(doc.config_from, kind).toBe(path.join(folderOf(kind), "test.config.json"));
      expect(doc.instances_not_used, kind).toEqual([`${SECTION_OF_KIND[kind]}/${nameOf(kind)}`]);
      expect(doc.claims.filter((c: { skipped?: boolean }) => !c.skipped).length, kind).toBeGreaterThanOrEqual(5);
      expect(doc.plugin, kind).toMatchObject({ name: nameOf(kind), kind });
      for (const c of doc.claims.filter((c: { skipped?: boolean }) => c.skipped))
        expect(c.reason, `${kind}: ${c.claim}`).toBeTruthy();
    });
  }, 240_000);

  it("(3) passes `patchbay plugin test <path>` with its test.config.json, outside any project", async () => {
    const elsewhere = tempDir("pb-templates-nocfg-");
    // skill-store's fixture has an invalidConfig, so Airbyte's claim really runs here instead of being skipped.
    const r = await runCli(["plugin", "test", folderOf("skill-store"), "--json"], {
      cwd: elsewhere,
      timeoutMs: 120_000,
    });
    const doc = JSON.parse(r.stdout);
    expect(doc.claims.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
    expect(r.code).toBe(0);
    expect(doc.config_from).toBe(path.join(folderOf("skill-store"), "test.config.json"));
    expect(doc.claims.find((c: { claim: string }) => c.claim.includes("invalid config"))).toMatchObject({ ok: true });
    expect(doc.claims.find((c: { claim: string }) => c.claim.includes("invalid config")).skipped).toBeUndefined();
  }, 180_000);

  it("(4) passes its own tests/conformance.test.ts under vitest, unchanged", async () => {
    const config = path.join(project, "vitest.proof.config.mjs");
    // A plain object: the temp project has no node_modules to import vitest/config from.
    writeFileSync(
      config,
      `export default ${JSON.stringify({
        resolve: {
          alias: {
            "patchbay/plugin": path.join(DIST, "plugin.js"),
            "patchbay/testing": path.join(DIST, "testing", "index.js"),
          },
        },
        test: { include: ["plugins/*/tests/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 120_000 },
      })};\n`,
    );
    const r = await run(VITEST, ["run", "--root", project, "--config", config, "--reporter=json"], project, 400_000);
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf("{")));
    const byFile = Object.fromEntries(
      report.testResults.map((t: { name: string; status: string; assertionResults: { status: string }[] }) => [
        path.relative(project, t.name).split(path.sep).join("/"),
        {
          status: t.status,
          passed: t.assertionResults.filter((a) => a.status === "passed").length,
          failed: t.assertionResults.filter((a) => a.status === "failed").length,
        },
      ]),
    );
    for (const kind of KINDS) {
      const result = byFile[`plugins/${nameOf(kind)}/tests/conformance.test.ts`];
      expect(result, `${kind}: its test did not run\n${r.stderr}`).toBeDefined();
      expect(result, kind).toMatchObject({ status: "passed", failed: 0 });
      expect(result.passed, kind).toBeGreaterThan(0);
    }
    expect(r.code, r.stderr).toBe(0);
  }, 420_000);
});
