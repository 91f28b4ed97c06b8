/**
 * file-drop-agent against the agent kit, booted by the host like any plugin: a real drop
 * folder; the invalid config puts it below a regular file, where it can never be created.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { registerConformance } from "patchbay/testing";

const dir = mkdtempSync(path.join(os.tmpdir(), "pb-file-drop-kit-"));
writeFileSync(path.join(dir, "not-a-folder"), "x");

await registerConformance("agent", {
  plugin: fileURLToPath(new URL("..", import.meta.url)),
  dir,
  config: { dir: "outbox", agents: ["perry", "ops"] },
  invalidConfig: { dir: "not-a-folder/outbox", agents: ["perry"] },
  agent: { agentId: "perry" },
});
