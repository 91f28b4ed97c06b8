// `patchbay hook <adapter> <event>` on the deny path, certified (a fake client binary printing a
// certified version on a private PATH), against a bare `node -e 0` start, for each bundled adapter:
// interleaved rounds in the same run, medians. Goal: hook p50 ≤ 3× node -e 0 for every client. The
// first run (full path, builds the cache) is reported apart.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { figure } from "./figures.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = path.join(root, "bin", "patchbay.mjs");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Per adapter: its client command and a certified version line, the deny event, a write payload, the deny's mark. */
const CLIENTS = [
  {
    adapter: "claude-code",
    command: "claude",
    version: "2.1.197 (Claude Code)",
    event: "PreToolUse",
    deny: '"permissionDecision":"deny"',
    payload: (secret) => ({
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: secret, content: "x" },
    }),
  },
  {
    adapter: "codex",
    command: "codex",
    version: "codex-cli 0.171.0",
    event: "PreToolUse",
    deny: '"permissionDecision":"deny"',
    payload: (secret) => ({
      hook_event_name: "PreToolUse",
      tool_name: "apply_patch",
      tool_input: { command: `*** Begin Patch\n*** Add File: ${secret}\n+x\n*** End Patch\n` },
    }),
  },
  {
    adapter: "gemini-cli",
    command: "gemini",
    version: "0.61.0",
    event: "BeforeTool",
    deny: '"decision":"deny"',
    payload: (secret) => ({
      hook_event_name: "BeforeTool",
      tool_name: "write_file",
      tool_input: { file_path: secret, content: "x" },
    }),
  },
];

for (const c of CLIENTS) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pb-bench-hook-"));
  const project = path.join(dir, "project");
  const fakeBin = path.join(dir, "bin");
  mkdirSync(path.join(project, "secrets"), { recursive: true });
  mkdirSync(fakeBin);
  writeFileSync(path.join(fakeBin, c.command), `#!/bin/sh\necho "${c.version}"\n`);
  chmodSync(path.join(fakeBin, c.command), 0o755);
  writeFileSync(
    path.join(project, "connectors.json"),
    JSON.stringify({
      plugins: [path.join(root, "plugins")],
      adapters: { [c.adapter]: { plugin: c.adapter, config: { protect: ["secrets"] } } },
    }),
  );
  const payload = JSON.stringify({
    session_id: "bench",
    cwd: project,
    ...c.payload(path.join(project, "secrets", "k.txt")),
  });
  const env = { PATH: `${fakeBin}:/usr/bin:/bin`, HOME: dir };
  const time = (args, input) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { cwd: project, env, input, encoding: "utf8" });
    return { ms: performance.now() - t, r };
  };
  const args = [bin, "hook", c.adapter, c.event];
  const first = time(args, payload);
  if (!first.r.stdout.includes(c.deny))
    throw new Error(`${c.adapter}: the hook did not deny: ${first.r.stdout} ${first.r.stderr}`);
  const hook = [];
  const bare = [];
  for (let i = 0; i < 15; i++) {
    bare.push(time(["-e", "0"], "").ms);
    const h = time(args, payload);
    if (!h.r.stdout.includes(c.deny)) throw new Error(`${c.adapter}: the hook stopped denying`);
    hook.push(h.ms);
  }
  rmSync(dir, { recursive: true, force: true });
  const h = median(hook);
  const b = median(bare);
  console.log(
    `\nhook deny path (${c.adapter} ${c.event}, certified): first run ${first.ms.toFixed(0)} ms (full path, builds the cache); p50 ${h.toFixed(1)} ms vs node -e 0 p50 ${b.toFixed(1)} ms, ratio ${(h / b).toFixed(2)}x (goal ≤ 3x)`,
  );
  figure(`hook deny path, ${c.adapter} (× node -e 0)`, h / b, 3, "×");
}
