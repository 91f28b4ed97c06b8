/**
 * The trail's size cap and its reading: past gateway.audit.maxBytes audit.log is rotated and only
 * `keep` old files stay; `patchbay audit` reads across them in order; a line that is not an entry
 * is skipped and counted, never the end of the read; a bad --since and a missing trail each get
 * their coded answer. The sink itself: a clean close writes every buffered line.
 */
import { appendFileSync, existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AuditFile } from "../../src/gateway/audit/file-sink.js";
import { readAuditFiles } from "../../src/gateway/audit/read.js";
import type { AuditEntry } from "../../src/gateway/clients/gate.js";
import { cleanupTempDirs, runCli, tempDir, writeConfig } from "../helpers.js";
import { startHttpServe } from "./_gateway.js";
import { ALPHA, auditConfig, env, type Line } from "./_audit.js";

afterAll(cleanupTempDirs);

const MAX = 1024;
const jsonLines = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

const T0 = Date.parse("2026-01-01T00:00:00Z");
const entry = (i: number): AuditEntry => ({
  time: new Date(T0 + i).toISOString(),
  client: i % 2 ? "a" : "b",
  session: null,
  instance: "mcpConnectors/gw",
  kind: "tool",
  name: "gw__echo",
  outcome: "ok",
  durationMs: 1.5,
  bytesIn: i,
  bytesOut: 10,
  idempotencyKey: null,
});

describe("audit.log rotation and `patchbay audit`", () => {
  it("keeps N rotated files under the cap and reads across them, oldest first", async () => {
    const { dir, file } = auditConfig({ audit: { maxBytes: MAX, keep: 2 } });
    const s = await startHttpServe(file, env);
    const alpha = await s.connect(ALPHA);
    try {
      for (let i = 0; i < 30; i++) await alpha.callTool({ name: "gw__echo", arguments: { text: `call ${i}` } });
    } finally {
      await alpha.close();
      expect(await s.stop()).toBe(0);
    }
    const state = path.join(dir, ".patchbay");
    const files = ["audit.log.2", "audit.log.1", "audit.log"].map((f) => path.join(state, f));
    for (const f of files) {
      expect(existsSync(f), f).toBe(true);
      expect(statSync(f).size).toBeLessThanOrEqual(MAX);
    }
    expect(existsSync(path.join(state, "audit.log.3"))).toBe(false);
    const kept = files.flatMap((f) => jsonLines(readFileSync(f, "utf8")));
    // 30 lines of ~250 bytes do not fit in three 1 KiB files: the oldest were dropped.
    expect(kept.length).toBeGreaterThan(3);
    expect(kept.length).toBeLessThan(30);
    const last = 29;
    expect(kept.at(-1)!.bytesIn).toBe(Buffer.byteLength(JSON.stringify({ text: `call ${last}` })));

    const all = await runCli(["audit", "--json", "--config", file], { cwd: dir });
    expect(all.code).toBe(0);
    expect((JSON.parse(all.stdout) as { entries: Line[] }).entries).toEqual(kept);
    const human = await runCli(["audit", "--client", "alpha", "--config", file], { cwd: dir });
    expect(human.stdout.trim().split("\n")).toHaveLength(kept.length + 1);

    // Garbage in the middle of the trail: skipped and counted, the rest still read.
    appendFileSync(files[1], 'not json at all\n{"time":"2026-01-01T00:00:00Z","client":"x"}\n');
    const after = await runCli(["audit", "--json", "--config", file], { cwd: dir });
    expect(after.code).toBe(0);
    expect((JSON.parse(after.stdout) as { entries: Line[]; skipped: number }).entries).toEqual(kept);
    expect(after.stderr).toMatch(/skipped 2 lines that are not audit entries \(the first at \S+audit\.log\.1:\d+\)/);
  });

  it("answers a bad --since and a missing trail with their codes", async () => {
    const { dir, file } = writeConfig({}, tempDir("pb-audit-none-"));
    const bad = await runCli(["audit", "--since", "yesterday", "--config", file], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("PB_ERR_USAGE");
    expect(bad.stderr).toContain('--since "yesterday" is neither a duration');
    const none = await runCli(["audit", "--config", file], { cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("PB_ERR_AUDIT_UNREADABLE");
    expect(none.stderr).toContain("no audit.log");
  });

  it("writes every buffered line on close, rotating as it goes, and reads them back filtered", async () => {
    const dir = tempDir("pb-audit-sink-");
    const sink = new AuditFile(dir, { maxBytes: 4096, keep: 100 });
    for (let i = 0; i < 500; i++) sink.record(entry(i));
    await sink.close();
    expect(sink.lost).toBe(0);
    const read = await readAuditFiles(dir);
    expect(read.entries.map((e) => e.bytesIn)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(read.files.length).toBeGreaterThan(10);
    for (const f of read.files) expect(statSync(f).size).toBeLessThanOrEqual(4096);
    const a = await readAuditFiles(dir, { client: "a", since: new Date(T0 + 250) });
    expect(a.entries.every((e) => e.client === "a" && e.bytesIn >= 250)).toBe(true);
    expect(a.entries).toHaveLength(125);
  });

  it("loses no line when two writers share one folder and rotate under each other", async () => {
    const dir = tempDir("pb-audit-two-");
    const one = new AuditFile(dir, { maxBytes: 2048, keep: 100 });
    const two = new AuditFile(dir, { maxBytes: 2048, keep: 100 });
    for (let i = 0; i < 200; i++) {
      (i % 2 ? one : two).record(entry(i));
      if (i % 20 === 19) await Promise.all([one.flush(), two.flush()]);
    }
    await Promise.all([one.close(), two.close()]);
    const read = await readAuditFiles(dir);
    expect(read.skipped).toBe(0);
    expect(read.entries.map((e) => e.bytesIn).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(read.files.length).toBeGreaterThan(5);
  });
});
