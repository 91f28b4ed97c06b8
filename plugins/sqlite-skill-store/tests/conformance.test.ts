/**
 * sqlite-skill-store against the skill-store kit, booted by the host like any plugin: a real
 * SQLite file; the invalid config puts it below a regular file, where no folder can be created.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerConformance } from "patchbay/testing";

const dir = mkdtempSync(path.join(os.tmpdir(), "pb-sqlite-skill-store-kit-"));
writeFileSync(path.join(dir, "not-a-folder"), "x");

await registerConformance("skill-store", {
  plugin: fileURLToPath(new URL("..", import.meta.url)),
  dir,
  config: { path: "skills.db" },
  invalidConfig: { path: "not-a-folder/skills.db" },
});
