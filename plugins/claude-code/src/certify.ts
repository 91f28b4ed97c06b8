/**
 * How `patchbay adapter certify` drives Claude Code: one scripted, offline print-mode turn
 * against the host's Messages API stub, with every hook event the client declares wired to the
 * capture hook. The script makes the model: write into a protected folder (the deny check), write
 * and edit an ordinary file, run a shell command that changes directory and writes (the Bash-write
 * decision), read a file and a missing one (PostToolUseFailure), and start a subagent that writes
 * (agent_id/agent_type on its calls). Throwaway HOME and project; nothing reaches the network.
 * Node builtins only: the host loads this module itself.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CertifyDriver, CertifyWorld, StubCall } from "patchbay/adapter";

type StubBlock = { type: "text"; text: string } | { type: "tool_use"; name: string; input: Record<string, unknown> };

/** Every hook event Claude Code 2.1.197 declares (read from the client; later releases may add more). */
export const CLAUDE_HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "Notification",
  "UserPromptSubmit",
  "UserPromptExpansion",
  "SessionStart",
  "SessionEnd",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PermissionRequest",
  "PermissionDenied",
  "Setup",
  "TeammateIdle",
  "TaskCreated",
  "TaskCompleted",
  "Elicitation",
  "ElicitationResult",
  "ConfigChange",
  "WorktreeCreate",
  "WorktreeRemove",
  "InstructionsLoaded",
  "CwdChanged",
  "FileChanged",
  "MessageDisplay",
] as const;

const TOOL_EVENTS = new Set([
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "PermissionDenied",
]);

const MAIN_PROMPT = "patchbay-certify: run the scripted steps";
const SUB_PROMPT = "patchbay-certify-subagent: write one file";

/** The environment a real client needs to run offline against the stub (and nothing of ours). */
export function offlineEnv(home: string, baseUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: "test",
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    IS_SANDBOX: "1",
  };
}

/** Which conversation a request belongs to, and how many assistant turns it already holds. */
function position(req: StubCall): { conversation: "main" | "sub" | "other"; step: number } {
  const messages = Array.isArray(req.body.messages)
    ? (req.body.messages as { role?: string; content?: unknown }[])
    : [];
  const tools = Array.isArray(req.body.tools) ? req.body.tools.length : 0;
  const first = JSON.stringify(messages[0]?.content ?? "");
  const step = messages.filter((m) => m.role === "assistant").length;
  if (tools === 0) return { conversation: "other", step };
  if (first.includes("patchbay-certify-subagent")) return { conversation: "sub", step };
  if (first.includes("patchbay-certify:")) return { conversation: "main", step };
  return { conversation: "other", step };
}

export function scenario(project: string, protectedDir: string): (req: StubCall) => StubBlock[] | null {
  const main: StubBlock[] = [
    {
      type: "tool_use",
      name: "Write",
      input: { file_path: path.join(protectedDir, "secret.txt"), content: "must not land\n" },
    },
    { type: "tool_use", name: "Write", input: { file_path: path.join(project, "notes.txt"), content: "hello\n" } },
    {
      type: "tool_use",
      name: "Edit",
      input: { file_path: path.join(project, "notes.txt"), old_string: "hello", new_string: "bye" },
    },
    {
      type: "tool_use",
      name: "Bash",
      input: { command: "mkdir -p work && cd work && echo hi > shell.txt", description: "write from the shell" },
    },
    { type: "tool_use", name: "Read", input: { file_path: path.join(project, "notes.txt") } },
    { type: "tool_use", name: "Read", input: { file_path: path.join(project, "missing.txt") } },
    {
      type: "tool_use",
      name: "Agent",
      input: { description: "write a file", prompt: SUB_PROMPT, subagent_type: "general-purpose" },
    },
  ];
  const sub: StubBlock[] = [
    {
      type: "tool_use",
      name: "Write",
      input: { file_path: path.join(project, "from-subagent.txt"), content: "sub\n" },
    },
  ];
  return (req) => {
    const { conversation, step } = position(req);
    if (conversation === "main") return step < main.length ? [main[step]] : [{ type: "text", text: "done" }];
    if (conversation === "sub") return step < sub.length ? [sub[step]] : [{ type: "text", text: "subagent done" }];
    return [{ type: "text", text: "ok" }];
  };
}

export const driver: CertifyDriver = {
  api: "messages",
  events: CLAUDE_HOOK_EVENTS,
  denyEvents: ["PreToolUse"],
  prepare(world: CertifyWorld) {
    mkdirSync(world.home, { recursive: true });
    mkdirSync(path.join(world.project, ".claude"), { recursive: true });
    // A CLAUDE.md makes InstructionsLoaded fire.
    writeFileSync(path.join(world.project, "CLAUDE.md"), "This project is a Patchbay certification sandbox.\n");
    const hooks: Record<string, unknown[]> = {};
    for (const event of CLAUDE_HOOK_EVENTS) {
      const entry = { hooks: [{ type: "command", command: `${world.hookCommand} ${event}`, timeout: 30 }] };
      hooks[event] = [TOOL_EVENTS.has(event) ? { matcher: "*", ...entry } : entry];
    }
    writeFileSync(path.join(world.project, ".claude", "settings.json"), JSON.stringify({ hooks }, null, 2));
    // bypassPermissions: root refuses --dangerously-skip-permissions.
    return {
      command: world.bin,
      args: ["-p", MAIN_PROMPT, "--permission-mode", "bypassPermissions"],
      env: offlineEnv(world.home, world.stubUrl),
      cwd: world.project,
      timeoutMs: 120_000,
    };
  },
  script: (world) => scenario(world.project, world.protectedDir),
};
