/**
 * How `patchbay adapter certify` drives Gemini CLI: `gemini -p` for one scripted, offline turn
 * against the host's generateContent stub (GOOGLE_GEMINI_BASE_URL, a dummy API key), with every
 * hook event Gemini declares wired in the project's .gemini/settings.json. `--approval-mode yolo`
 * (without it `-p` offers no write_file), an explicit `-m` (else a routing classifier asks the
 * model first), and GEMINI_CLI_TRUST_WORKSPACE (Gemini ignores an untrusted folder's settings).
 * The script: write_file into the protected folder (the deny check), write_file and replace an
 * ordinary file, a shell command. Node builtins only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CertifyDriver, CertifyWorld, StubCall } from "patchbay/adapter";

/** Every hook event Gemini CLI 0.61 declares. */
export const GEMINI_HOOK_EVENTS = [
  "SessionStart",
  "SessionEnd",
  "BeforeAgent",
  "AfterAgent",
  "BeforeModel",
  "AfterModel",
  "BeforeToolSelection",
  "BeforeTool",
  "AfterTool",
  "PreCompress",
  "Notification",
] as const;

const TOOL_EVENTS = new Set(["BeforeTool", "AfterTool"]);

export const MODEL = "gemini-2.5-flash";

/** ~/.gemini/settings.json for an API-key login (else gemini exits 41, "Invalid auth method selected"). */
export const USER_SETTINGS = JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }, null, 2) + "\n";

/** The environment Gemini CLI needs to run offline against the stub (and nothing of ours). */
export function offlineEnv(home: string, baseUrl: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GEMINI_API_KEY: "test",
    GOOGLE_GEMINI_BASE_URL: baseUrl,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    NO_COLOR: "1",
    GEMINI_TELEMETRY_ENABLED: "false",
  };
}

export const geminiArgs = (prompt: string) => ["--approval-mode", "yolo", "-m", MODEL, "-p", prompt];

/** How many function calls the conversation already holds (0 for requests without tools). */
export function stepOf(req: StubCall): number | null {
  if (!Array.isArray(req.body.tools)) return null;
  const contents = Array.isArray(req.body.contents)
    ? (req.body.contents as { role?: string; parts?: { functionCall?: unknown }[] }[])
    : [];
  return contents.filter((c) => c.role === "model" && (c.parts ?? []).some((p) => p.functionCall)).length;
}

export const driver: CertifyDriver = {
  api: "generate-content",
  events: GEMINI_HOOK_EVENTS,
  denyEvents: ["BeforeTool"],
  prepare(world: CertifyWorld) {
    mkdirSync(path.join(world.home, ".gemini"), { recursive: true });
    mkdirSync(path.join(world.project, ".gemini"), { recursive: true });
    writeFileSync(path.join(world.home, ".gemini", "settings.json"), USER_SETTINGS);
    const hooks: Record<string, unknown[]> = {};
    for (const event of GEMINI_HOOK_EVENTS) {
      const entry = { hooks: [{ type: "command", command: `${world.hookCommand} ${event}`, timeout: 30_000 }] };
      hooks[event] = [TOOL_EVENTS.has(event) ? { matcher: ".*", ...entry } : entry];
    }
    writeFileSync(path.join(world.project, ".gemini", "settings.json"), JSON.stringify({ hooks }, null, 2));
    return {
      command: world.bin,
      args: geminiArgs("patchbay-certify: run the scripted steps"),
      env: offlineEnv(world.home, world.stubUrl),
      cwd: world.project,
      timeoutMs: 150_000,
    };
  },
  script(world) {
    const notes = path.join(world.project, "notes.txt");
    const steps = [
      {
        type: "function_call",
        name: "write_file",
        args: { file_path: world.protectedFile, content: "must not land\n" },
      },
      { type: "function_call", name: "write_file", args: { file_path: notes, content: "hello\n" } },
      {
        type: "function_call",
        name: "replace",
        args: { file_path: notes, old_string: "hello", new_string: "bye", instruction: "say bye" },
      },
      {
        type: "function_call",
        name: "run_shell_command",
        args: { command: "echo hi > shell.txt", description: "write from the shell" },
      },
    ];
    return (req) => {
      const step = stepOf(req);
      if (step === null) return [{ type: "text", text: "{}" }];
      return step < steps.length ? [steps[step]] : [{ type: "text", text: "done" }];
    };
  },
};
