import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { tierUpFlags } from "../../src/cli/tier-up.js";

const tierUp = pathToFileURL(path.resolve("dist/cli/tier-up.js")).href;

// Between the lowered and the default threshold of V8 11 and 12 (Node 20 and 22).
const CALLS = 300;

const hot = (name: string) => `function ${name}(o) {
  let s = 0;
  for (const k in o) s += String(o[k]).length;
  return s + JSON.stringify(o).length;
}
for (let i = 0; i < ${CALLS}; i++) ${name}({ a: i, b: "x", c: [1, 2] });`;

/**
 * Runs a small function CALLS times on the host's thread, in a worker thread started after the flags
 * were set (with resource limits, as an instance's), and on the host's thread once that worker has
 * ended, under `--trace-opt`; returns which of the three V8 marked for TurboFan. At V8's
 * defaults none has run long enough yet.
 */
function marked(setBudget: boolean, env: Record<string, string> = {}): string[] {
  const script = `
    import { Worker } from "node:worker_threads";
    ${setBudget ? `(await import(${JSON.stringify(tierUp)})).tierUpSooner();` : ""}
    ${hot("hotOnHost")}
    const limits = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 4 };
    const w = new Worker(${JSON.stringify(hot("hotInWorker"))}, { eval: true, resourceLimits: limits });
    await new Promise((r) => w.once("exit", r));
    ${hot("hotAfterWorker")}
  `;
  const run = spawnSync(process.execPath, ["--trace-opt", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  // A flag this V8 does not know is an error printed to stderr, not an exception.
  expect(run.stderr).toBe("");
  const out = run.stdout;
  return ["hotOnHost", "hotInWorker", "hotAfterWorker"].filter((name) =>
    new RegExp(`marking .*${name}.* to TURBOFAN`).test(out),
  );
}

describe("a serve's tier-up budget", () => {
  it("has V8 optimize a function after a fraction of its default threshold, on the host's thread and in later workers", () => {
    expect(marked(false)).toEqual([]);
    // Node 24's V8 is left at its defaults (tier-up.ts says why).
    const lowered = tierUpFlags().length > 0;
    expect(marked(true)).toEqual(lowered ? ["hotOnHost", "hotInWorker", "hotAfterWorker"] : []);
    expect(marked(true, { PATCHBAY_TIER_UP: "default" })).toEqual([]);
  });

  it("names the flags for the V8s of Node 20 and 22, and none for another", () => {
    expect(tierUpFlags(11)).toEqual(["--interrupt-budget=4096"]);
    expect(tierUpFlags(12)).toEqual(["--invocation-count-for-turbofan=188"]);
    expect(tierUpFlags(13)).toEqual([]);
    expect(tierUpFlags(10)).toEqual([]);
    expect(tierUpFlags(15)).toEqual([]);
  });
});
