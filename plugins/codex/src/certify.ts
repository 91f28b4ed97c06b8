/**
 * How `patchbay adapter certify` drives Codex: `codex exec` for one scripted, offline turn
 * against the host's Responses API stub (a custom model provider in a throwaway CODEX_HOME), with
 * every hook event Codex declares wired through hooks.json. The model is `gpt-5.5`, a slug Codex
 * has built-in metadata for, so it offers `apply_patch` (an unknown slug gets no patch tool). The
 * script: apply_patch into the protected folder (the deny check), apply_patch an ordinary file,
 * a shell command. Hook trust is bypassed for this run only (`--dangerously-bypass-hook-trust`):
 * the hooks are the certifier's own, in a folder deleted afterwards. Node builtins only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CertifyDriver, CertifyWorld, StubCall } from "patchbay/adapter";

/** Every hook event Codex 0.169/0.171 declares (its app-server's HookEventName, PascalCase as in hooks.json). */
export const CODEX_HOOK_EVENTS = [
  "SessionStart",
  "SessionEnd",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "PreModelRequest",
  "PostModelRequest",
  "Interrupt",
] as const;

export const MODEL = "gpt-5.5";

/** The config.toml of a CODEX_HOME that talks only to `baseUrl` (the env var names a dummy key). */
export function offlineConfig(baseUrl: string): string {
  return [
    `model = "${MODEL}"`,
    `model_provider = "patchbay-stub"`,
    `approval_policy = "never"`,
    `sandbox_mode = "danger-full-access"`,
    "",
    "[model_providers.patchbay-stub]",
    `name = "patchbay-stub"`,
    `base_url = "${baseUrl}/v1"`,
    `wire_api = "responses"`,
    `env_key = "PATCHBAY_STUB_KEY"`,
    "",
  ].join("\n");
}

/** The environment Codex needs to run offline against the stub (and nothing of ours). */
export function offlineEnv(home: string, codexHome: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    CODEX_HOME: codexHome,
    PATCHBAY_STUB_KEY: "test",
    NO_COLOR: "1",
  };
}

/** How many tool calls the conversation already holds: the script's step. */
export function stepOf(req: StubCall): number {
  const input = Array.isArray(req.body.input) ? (req.body.input as { type?: string }[]) : [];
  return input.filter((i) => i.type === "function_call" || i.type === "custom_tool_call").length;
}

export const addFile = (file: string, text: string) =>
  `*** Begin Patch\n*** Add File: ${file}\n+${text}\n*** End Patch\n`;

export const driver: CertifyDriver = {
  api: "responses",
  events: CODEX_HOOK_EVENTS,
  denyEvents: ["PreToolUse"],
  prepare(world: CertifyWorld) {
    const codexHome = path.join(world.home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    mkdirSync(world.project, { recursive: true });
    writeFileSync(path.join(codexHome, "config.toml"), offlineConfig(world.stubUrl));
    const hooks: Record<string, unknown[]> = {};
    for (const event of CODEX_HOOK_EVENTS)
      hooks[event] = [{ hooks: [{ type: "command", command: `${world.hookCommand} ${event}`, timeout: 30 }] }];
    writeFileSync(path.join(codexHome, "hooks.json"), JSON.stringify({ hooks }, null, 2));
    return {
      command: world.bin,
      args: [
        "exec",
        "--skip-git-repo-check",
        "--dangerously-bypass-hook-trust",
        "patchbay-certify: run the scripted steps",
      ],
      env: offlineEnv(world.home, codexHome),
      cwd: world.project,
      timeoutMs: 120_000,
    };
  },
  script(world) {
    const steps = [
      { type: "custom_tool_call", name: "apply_patch", input: addFile(world.protectedFile, "must not land") },
      { type: "custom_tool_call", name: "apply_patch", input: addFile("notes.txt", "hello") },
      { type: "function_call", name: "exec_command", arguments: { cmd: "echo hi > shell.txt" } },
    ];
    return (req) => {
      const step = stepOf(req);
      return step < steps.length ? [steps[step]] : [{ type: "text", text: "done" }];
    };
  },
};
