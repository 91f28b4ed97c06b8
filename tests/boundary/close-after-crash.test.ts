/**
 * Found while measuring: closing an instance while it restarts after a crash left a
 * MessagePort open, so the host process never exited on its own. Each case runs in a child
 * process (vitest's own threads hold ports) and closes at one moment of the restart.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const SCRIPT = path.join(ROOT, "tests", "fixtures", "scripts", "close-during-restart.mjs");

function run(
  moment: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SCRIPT, moment], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    // A hang is the bug: the test's own timeout would report it less clearly than a kill does.
    const kill = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("exit", (code, signal) => {
      clearTimeout(kill);
      resolve({ code, signal, out, err });
    });
  });
}

describe("closing an instance during its restart after a crash", () => {
  for (const moment of ["crashed", "starting", "ready"]) {
    it(`releases every port and lets the process exit (closed when ${moment})`, async () => {
      const r = await run(moment);
      expect(r.signal, `the child had to be killed: it never exited on its own\n${r.err}`).toBeNull();
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out.trim())).toEqual({ state: "stopped", held: [] });
    });
  }
});

describe("closing a thread that cannot terminate in time", () => {
  it("leaves no rejection behind (vitest fails the run on one): the thread is blocked in a syscall", async () => {
    const { execFileSync } = await import("node:child_process");
    const { openSync, closeSync } = await import("node:fs");
    const { createHost } = await import("../../src/index.js");
    const { tempDir, writeConfig, cleanupTempDirs } = await import("../helpers.js");
    // A FIFO with no writer: the plugin's readFileSync blocks in open(2), where terminate() cannot reach it.
    const fifo = path.join(tempDir("pb-fifo-"), "never");
    execFileSync("mkfifo", [fifo]);
    const { file } = writeConfig({
      mcpConnectors: { h: { plugin: "fx-hostile", isolation: "thread", timeout_ms: 1_000 } },
    });
    const host = await createHost({ config: file, logLevel: "silent", graceMs: 100 });
    await expect(host.mcp("h").call("read", { path: fifo })).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
    // close() gives the thread its stop timeout and returns; tinypool's own terminate timeout used to reject unobserved then.
    await host.close();
    await new Promise((r) => setImmediate(r));
    // Free the thread (opening the write end completes its open), so nothing outlives the test.
    closeSync(openSync(fifo, "w"));
    cleanupTempDirs();
  });
});
