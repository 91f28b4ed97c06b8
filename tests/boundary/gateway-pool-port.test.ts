/**
 * A thread-mode plugin can reach the worker pool's own channel (its parentPort), which tinypool's
 * host-side listener reads unchecked. No message on it may throw in the host or end it: junk is
 * dropped and logged naming the instance, and the instance keeps answering. The host runs in a
 * child process of its own here, so a crash is seen as that child's exit (it would take vitest's
 * worker down otherwise).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, ROOT, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

const JUNK: unknown[] = [null, 0, "x", [], {}, { ready: "yes" }, { taskId: 1 }, { ready: null }];

/** A small program: boot a host with fx-hostile in a thread, post `junk` on parentPort, then call again. */
const PROGRAM = `
import { createHost } from ${JSON.stringify(path.join(ROOT, "dist", "index.js"))};
const [file, junk] = [process.argv[2], JSON.parse(process.argv[3])];
const lines = [];
const host = await createHost({ config: file, logLevel: "debug", logDestination: { write: (l) => void lines.push(String(l)) } });
const posted = await host.mcp("h").call("parent-port", { messages: junk });
// The pool's channel is not the calls' channel: wait for every drop to be logged (bounded).
const count = () => lines.filter((l) => l.includes("worker pool's own channel")).length;
for (let i = 0; i < 2000 && count() < junk.length; i++) await new Promise((r) => setTimeout(r, 10));
const after = await host.mcp("h").call("pid", {});
const neighbour = await host.mcp("n").call("echo", { text: "still here" });
await host.close();
console.log(JSON.stringify({ posted, after, neighbour, dropped: count() }));
`;

function runHost(file: string, junk: unknown[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // A file, not --input-type=module -e: worker threads inherit execArgv, and that flag stops them.
    const program = path.join(path.dirname(file), "host.mjs");
    writeFileSync(program, PROGRAM);
    const child = spawn(process.execPath, [program, file, JSON.stringify(junk)], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("the worker pool's own port in thread mode", () => {
  it("takes null and other junk from a plugin without throwing in the host", async () => {
    const { file } = writeConfig({ mcpConnectors: { h: { plugin: "fx-hostile" }, n: { plugin: "fx-echo" } } });
    const r = await runHost(file, JUNK);
    expect(r.stderr).not.toContain("Cannot read properties of null");
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").pop()!);
    expect(out.posted).toEqual({ posted: true });
    expect(out.after).toHaveProperty("pid");
    expect(out.neighbour).toMatchObject({ text: "still here" });
    expect(out.dropped).toBe(JUNK.length);
  }, 60_000);
});
