/**
 * adapter-inbox against the agent kit, booted by the host like any plugin: a real SQLite inbox;
 * the invalid config puts it below a regular file, where it can never be created.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";
import { registerConformance } from "patchbay/testing";

const dir = mkdtempSync(path.join(os.tmpdir(), "pb-adapter-inbox-kit-"));
writeFileSync(path.join(dir, "not-a-folder"), "x");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

await registerConformance("agent", {
  plugin: fileURLToPath(new URL("..", import.meta.url)),
  dir,
  config: { path: "inbox.db", agents: ["claude-code", "example"] },
  invalidConfig: { path: "not-a-folder/inbox.db", agents: ["claude-code"] },
  agent: { agentId: "claude-code" },
});
