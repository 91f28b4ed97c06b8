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

function run(moment: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> {
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
