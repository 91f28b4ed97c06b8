/**
 * fs-skill-store against the skill-store kit, booted by the host like any plugin: a real folder;
 * the invalid config puts the folder below a regular file, where it can never be created.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerConformance } from "patchbay/testing";

const dir = mkdtempSync(path.join(os.tmpdir(), "pb-fs-skill-store-kit-"));
writeFileSync(path.join(dir, "not-a-folder"), "x");

await registerConformance("skill-store", {
  plugin: fileURLToPath(new URL("..", import.meta.url)),
  dir,
  config: { dir: "skills" },
  invalidConfig: { dir: "not-a-folder/skills" },
});
