// `npm run pack:check [tarball]`: lints the package as published, with the tools made for it:
// publint (package.json fields against the files the tarball really holds) and
// @arethetypeswrong/cli (types resolve, and match the JavaScript, under every module resolution a
// consumer may use). Without an argument it packs this folder first (prepack builds dist/).
// Exits non-zero when either finds a problem.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => path.join(root, "node_modules", ".bin", name);
let tarball = process.argv[2] ? path.resolve(process.argv[2]) : null;
let temp = null;
if (!tarball) {
  temp = mkdtempSync(path.join(os.tmpdir(), "patchbay-pack-"));
  const out = execFileSync("npm", ["pack", "--json", "--pack-destination", temp], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  tarball = path.join(temp, JSON.parse(out)[0].filename);
}

// attw's node16 profile: ESM and CJS consumers under node16/nodenext and bundler resolution
// (node10, which ignores "exports", cannot see the subpaths and is not a supported consumer).
// cjs-resolves-to-esm is expected, not wrong: the package is ES modules only, and require() of it
// works on every Node version "engines" admits (>= 20.19 loads ES modules through require;
// .ci/pack-install.sh proves it from a CommonJS project).
const checks = [
  ["publint", [bin("publint"), "run", tarball, "--strict"]],
  [
    "attw",
    [bin("attw"), tarball, "--profile", "node16", "--ignore-rules", "cjs-resolves-to-esm", "--no-emoji", "--no-color"],
  ],
];
let failed = 0;
for (const [name, [cmd, ...args]] of checks) {
  process.stdout.write(`\n== ${name} ${path.basename(tarball)}\n`);
  const run = spawnSync(cmd, args, { stdio: "inherit" });
  if (run.status !== 0) {
    failed++;
    process.stdout.write(`${name}: FAILED (exit ${run.status ?? run.signal})\n`);
  }
}
if (temp) rmSync(temp, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
