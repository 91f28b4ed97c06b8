/**
 * Drives the real Claude Code client through one scripted, offline print-mode turn against the
 * project's Messages API stub, with every hook event the client declares wired to the capture
 * hook. The script makes the model: write into a protected folder (the deny check), write and
 * edit an ordinary file, run a shell command that changes directory and writes (the Bash-write
 * decision), read a file and a missing one (PostToolUseFailure), and start a subagent that writes
 * (agent_id/agent_type on its calls). Throwaway HOME and project; nothing reaches the network.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startMessagesStub, type StubBlock, type StubRequest } from "./messages-stub.js";

/** Every hook event Claude Code 2.1.197 declares (read from the client; later releases may add more). */
export const CLAUDE_HOOK_EVENTS = [
  "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit", "UserPromptExpansion",
  "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
  "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation",
  "ElicitationResult", "ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "MessageDisplay",
] as const;

const TOOL_EVENTS = new Set(["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"]);

const MAIN_PROMPT = "patchbay-certify: run the scripted steps";
const SUB_PROMPT = "patchbay-certify-subagent: write one file";

export interface ClientRun {
  exitCode: number | null;
  stdout: string;
  requests: StubRequest[];
  /** Folders of the throwaway world. */
  project: string;
  protectedDir: string;
  home: string;
}

/** The environment a real client needs to run offline against the stub (and nothing of ours). */
export function offlineEnv(home: string, baseUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: "test",
    DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", IS_SANDBOX: "1",
  };
}

/** Runs `claude -p` (bypassPermissions: root refuses --dangerously-skip-permissions) and waits for it, bounded. */
export function runClaude(bin: string, prompt: string, cwd: string, env: Record<string, string>, timeoutMs = 120_000): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["-p", prompt, "--permission-mode", "bypassPermissions"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, stdout, stderr });
    });
  });
}

/** Which conversation a request belongs to, and how many assistant turns it already holds. */
function position(req: StubRequest): { conversation: "main" | "sub" | "other"; step: number } {
  const messages = Array.isArray(req.body.messages) ? (req.body.messages as { role?: string; content?: unknown }[]) : [];
  const tools = Array.isArray(req.body.tools) ? req.body.tools.length : 0;
  const first = JSON.stringify(messages[0]?.content ?? "");
  const step = messages.filter((m) => m.role === "assistant").length;
  if (tools === 0) return { conversation: "other", step };
  if (first.includes("patchbay-certify-subagent")) return { conversation: "sub", step };
  if (first.includes("patchbay-certify:")) return { conversation: "main", step };
  return { conversation: "other", step };
}

function scenario(project: string, protectedDir: string): (req: StubRequest) => StubBlock[] | null {
  const main: StubBlock[] = [
    { type: "tool_use", name: "Write", input: { file_path: path.join(protectedDir, "secret.txt"), content: "must not land\n" } },
    { type: "tool_use", name: "Write", input: { file_path: path.join(project, "notes.txt"), content: "hello\n" } },
    { type: "tool_use", name: "Edit", input: { file_path: path.join(project, "notes.txt"), old_string: "hello", new_string: "bye" } },
    { type: "tool_use", name: "Bash", input: { command: "mkdir -p work && cd work && echo hi > shell.txt", description: "write from the shell" } },
    { type: "tool_use", name: "Read", input: { file_path: path.join(project, "notes.txt") } },
    { type: "tool_use", name: "Read", input: { file_path: path.join(project, "missing.txt") } },
    { type: "tool_use", name: "Agent", input: { description: "write a file", prompt: SUB_PROMPT, subagent_type: "general-purpose" } },
  ];
  const sub: StubBlock[] = [{ type: "tool_use", name: "Write", input: { file_path: path.join(project, "from-subagent.txt"), content: "sub\n" } }];
  return (req) => {
    const { conversation, step } = position(req);
    if (conversation === "main") return step < main.length ? [main[step]] : [{ type: "text", text: "done" }];
    if (conversation === "sub") return step < sub.length ? [sub[step]] : [{ type: "text", text: "subagent done" }];
    return [{ type: "text", text: "ok" }];
  };
}

/** One scripted turn with every event wired to `hookCommand <Event>`. */
export async function driveClaude(bin: string, root: string, hookCommand: string): Promise<ClientRun> {
  const home = path.join(root, "home");
  const project = path.join(root, "project");
  const protectedDir = path.join(project, "protected");
  mkdirSync(home, { recursive: true });
  mkdirSync(path.join(project, ".claude"), { recursive: true });
  mkdirSync(protectedDir, { recursive: true });
  // A CLAUDE.md makes InstructionsLoaded fire.
  writeFileSync(path.join(project, "CLAUDE.md"), "This project is a Patchbay certification sandbox.\n");
  const hooks: Record<string, unknown[]> = {};
  for (const event of CLAUDE_HOOK_EVENTS) {
    const entry = { hooks: [{ type: "command", command: `${hookCommand} ${event}`, timeout: 30 }] };
    hooks[event] = [TOOL_EVENTS.has(event) ? { matcher: "*", ...entry } : entry];
  }
  writeFileSync(path.join(project, ".claude", "settings.json"), JSON.stringify({ hooks }, null, 2));
  const stub = await startMessagesStub(scenario(project, protectedDir));
  try {
    const result = await runClaude(bin, MAIN_PROMPT, project, offlineEnv(home, stub.url));
    return { exitCode: result.exitCode, stdout: result.stdout, requests: stub.requests, project, protectedDir, home };
  } finally {
    await stub.close();
  }
}
