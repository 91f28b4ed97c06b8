/**
 * plugin.json's problems read as connectors.json's do: a misspelt key or kind gets a guess, a
 * missing field says it is required, and bad JSON names its line and column.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { readManifest } from "../../src/discovery/scan.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

const good = { name: "notes", version: "1.0.0", kind: "mcp", entry: "src/index.ts", patchbay: "^1" };

function problem(text: string): string {
  const dir = path.join(tempDir("pb-manifest-"), "notes");
  mkdirSync(path.join(dir, "src"), { recursive: true });
  writeFileSync(path.join(dir, "src", "index.ts"), "export default {};\n");
  const file = path.join(dir, "plugin.json");
  writeFileSync(file, text);
  const read = readManifest(dir, file, false);
  if (!("error" in read)) throw new Error("the manifest was accepted");
  expect(read.error.code).toBe("PB_ERR_PLUGIN_MANIFEST_INVALID");
  return read.error.message;
}

it("guesses a misspelt key and a misspelt kind", () => {
  expect(problem(JSON.stringify({ ...good, capabilites: [] }))).toContain(
    '/capabilites: unknown key "capabilites" (did you mean "capabilities"?)',
  );
  const kind = problem(JSON.stringify({ ...good, kind: "mpc" }));
  expect(kind).toContain('/kind: "mpc" is not a kind (did you mean "mcp"?); kinds: ');
  expect(kind).toContain("memory-store");
});

it("says a missing field is required, and where bad JSON breaks", () => {
  const { kind: _, ...noKind } = good;
  expect(problem(JSON.stringify(noKind))).toContain("/kind: is required");
  expect(problem('{\n  "name": "notes",\n  "version": "1.0.0"\n  "kind": "mcp"\n}\n')).toMatch(
    /not valid JSON at line 4, column 3 \(/,
  );
});
