/**
 * `patchbay audit`'s table shows what a client chose (its idempotency key, the name it called) as
 * text, never as terminal control: an escape sequence, a line break or a bidi override in a key
 * is printed as <U+XXXX>, so no client can repaint the operator's screen or forge a row. --json
 * keeps the value as it was recorded.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, runCli, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

const hostileKey = "\u001b[2J\u001b[31mFAKE\nROW operator ok\u0007\u202e";
const entry = {
  time: new Date().toISOString(),
  client: "cq2",
  session: "s-1",
  instance: "mcpConnectors/up",
  kind: "tool",
  name: "echo\u001b[8m",
  outcome: "ok",
  durationMs: 3,
  bytesIn: 10,
  bytesOut: 20,
  idempotencyKey: hostileKey,
};

describe("patchbay audit's table", () => {
  it("prints control, line-break and bidi characters a client sent as <U+XXXX>", async () => {
    const { dir, file } = writeConfig({ mcpConnectors: {} });
    mkdirSync(path.join(dir, ".patchbay"), { recursive: true });
    writeFileSync(path.join(dir, ".patchbay", "audit.log"), `${JSON.stringify(entry)}\n`);
    const r = await runCli(["audit", "--config", file], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2); // the header and one row: no forged second row
    expect(lines[1]).toContain("<U+001B>[2J<U+001B>[31mFAKE<U+000A>ROW operator ok<U+0007><U+202E>");
    expect(lines[1]).toContain("tool echo<U+001B>[8m");

    const json = await runCli(["audit", "--json", "--config", file], { cwd: dir });
    expect(JSON.parse(json.stdout).entries[0].idempotencyKey).toBe(hostileKey);
  });
});
