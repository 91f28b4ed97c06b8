/**
 * `patchbay call` with mcp-remote, as a user runs it (the built bin, a connectors.json on disk):
 * --verbose prints the server's progress on stderr, and a stdio server that ignores its stdin
 * closing and SIGTERM does not outlive the command.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOSTILE, ROOT } from "./_host.js";

const dir = mkdtempSync(join(tmpdir(), "pb-mcp-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function patchbay(config: Record<string, unknown>, ...args: string[]) {
  const file = join(dir, "connectors.json");
  writeFileSync(file, JSON.stringify(config));
  return spawnSync(process.execPath, [join(ROOT, "bin/patchbay.mjs"), ...args, "--config", file], {
    encoding: "utf8",
    timeout: 30_000,
  });
}

describe("patchbay call with mcp-remote", () => {
  it("--verbose prints progress lines on stderr; stdout stays the JSON result", () => {
    const r = patchbay(
      { plugins: [], mcpConnectors: { h: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE] } } } },
      "call",
      "mcpConnectors/h",
      "call",
      '"progress"',
      '{"steps":2}',
      "--verbose",
    );
    expect(r.status).toBe(0);
    expect(r.stderr).toContain("progress 1/2 step 1");
    expect(r.stderr).toContain("progress 2/2 step 2");
    expect(JSON.parse(r.stdout)).toMatchObject({ content: [{ text: "done" }] });
  });

  it("leaves no stdio server behind, even one that ignores stdin closing and SIGTERM", () => {
    const pidFile = join(dir, "stubborn.pid");
    const r = patchbay(
      {
        plugins: [],
        mcpConnectors: {
          s: {
            plugin: "mcp-remote",
            config: { command: "node", args: [HOSTILE, "--ignore-stdin-close"], env: { PID_FILE: pidFile } },
          },
        },
      },
      "call",
      "mcpConnectors/s",
      "call",
      '"ok"',
      "{}",
    );
    expect(r.status).toBe(0);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
