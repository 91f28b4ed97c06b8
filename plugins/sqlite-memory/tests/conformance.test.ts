/**
 * sqlite-memory against the memory-store kit, booted by the host like any plugin: a real file
 * in a temp folder; the invalid config puts the database below a regular file, which no folder
 * can be created under.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerConformance } from "patchbay/testing";

const dir = mkdtempSync(path.join(os.tmpdir(), "pb-sqlite-memory-kit-"));
writeFileSync(path.join(dir, "not-a-folder"), "x");

await registerConformance("memory-store", {
  plugin: fileURLToPath(new URL("..", import.meta.url)),
  dir,
  config: { path: "memory.db" },
  invalidConfig: { path: "not-a-folder/memory.db" },
});
