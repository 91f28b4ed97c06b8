// `patchbay hook claude-code PreToolUse` on the deny path, certified (a fake `claude` printing
// 2.1.197 on a private PATH), against a bare `node -e 0` start: interleaved rounds in the same run,
// medians. Goal: hook p50 ≤ 3× node -e 0. The first run (full path, builds the cache) is reported apart.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = path.join(root, "bin", "patchbay.mjs");
const dir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-hook-"));
const project = path.join(dir, "project");
const fakeBin = path.join(dir, "bin");
mkdirSync(path.join(project, "secrets"), { recursive: true });
mkdirSync(fakeBin);
writeFileSync(path.join(fakeBin, "claude"), '#!/bin/sh\necho "2.1.197 (Claude Code)"\n');
chmodSync(path.join(fakeBin, "claude"), 0o755);
writeFileSync(path.join(project, "connectors.json"), JSON.stringify({ plugins: [path.join(root, "plugins")], adapters: { "claude-code": { plugin: "claude-code", config: { protect: ["secrets"] } } } }));
const payload = JSON.stringify({ session_id: "bench", cwd: project, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: path.join(project, "secrets", "k.txt"), content: "x" } });
const env = { PATH: `${fakeBin}:/usr/bin:/bin`, HOME: dir };

function time(args, input) {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: project, env, input, encoding: "utf8" });
  const ms = performance.now() - t;
  return { ms, r };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const first = time([bin, "hook", "claude-code", "PreToolUse"], payload);
if (!first.r.stdout.includes('"permissionDecision":"deny"')) throw new Error(`the hook did not deny: ${first.r.stdout} ${first.r.stderr}`);
const hook = [];
const bare = [];
for (let i = 0; i < 15; i++) {
  bare.push(time(["-e", "0"], "").ms);
  const h = time([bin, "hook", "claude-code", "PreToolUse"], payload);
  if (!h.r.stdout.includes('"permissionDecision":"deny"')) throw new Error("the hook stopped denying");
  hook.push(h.ms);
}
rmSync(dir, { recursive: true, force: true });
const h = median(hook);
const b = median(bare);
console.log(`\nhook deny path (claude-code PreToolUse, certified): first run ${first.ms.toFixed(0)} ms (full path, builds the cache); p50 ${h.toFixed(1)} ms vs node -e 0 p50 ${b.toFixed(1)} ms, ratio ${(h / b).toFixed(2)}x (goal ≤ 3x)`);
