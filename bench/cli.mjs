/**
 * CLI start-up: `patchbay --version` and `--help` against `node -e 0`, interleaved in one run so
 * both see the same machine. Goal: ≤ 2x, which holds only while those paths load no command,
 * no host and no zod (src/cli/commands.ts loads each command on use).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../bin/patchbay.mjs", import.meta.url));
const ROUNDS = 15;

function timeOnce(args) {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: "ignore" });
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}`);
  return performance.now() - t;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function cliStartup() {
  const base = [];
  const version = [];
  const help = [];
  for (let i = 0; i < ROUNDS; i++) {
    base.push(timeOnce(["-e", "0"]));
    version.push(timeOnce([BIN, "--version"]));
    help.push(timeOnce([BIN, "--help"]));
  }
  return { base: median(base), version: median(version), help: median(help) };
}

export function printCliStartup() {
  const r = cliStartup();
  console.log(`\nCLI start-up (medians of ${ROUNDS} interleaved runs): node -e 0 ${r.base.toFixed(1)} ms; patchbay --version ${r.version.toFixed(1)} ms (${(r.version / r.base).toFixed(2)}x); --help ${r.help.toFixed(1)} ms (${(r.help / r.base).toFixed(2)}x). Goal ≤ 2x.`);
}

if (import.meta.url === `file://${process.argv[1]}`) printCliStartup();
