/**
 * claude-code: the Claude Code adapter. Protocol facts live in hooks.ts; this file wires them to
 * the adapter contract and plans the install: Patchbay's hook commands appended to the `hooks`
 * arrays of one Claude Code settings file (a `merge`: the file is the user's and is never deleted).
 *
 * config.scope picks the settings file: "local" (default) .claude/settings.local.json next to
 * connectors.json (personal, not committed), "project" .claude/settings.json (shared), "user"
 * ~/.claude/settings.json (every project).
 */
import path from "node:path";
import { z } from "patchbay/plugin";
import { defineAdapter, JSON_HOOKS_CAPABILITIES, jsonHooksAdapter } from "patchbay/adapter";
import type { AdapterEnv, WiredHook } from "patchbay/adapter";
import { CLIENT, protocol, WRITE_TOOLS } from "./hooks.js";

/** Events install wires, each with the matcher Claude Code filters tools by. */
const WIRED: readonly WiredHook[] = [
  { event: "SessionStart" },
  { event: "SessionEnd" },
  { event: "UserPromptSubmit" },
  { event: "PreToolUse", matcher: Object.keys(WRITE_TOOLS).join("|") },
];

/**
 * Claude Code's hook timeout, in seconds: Patchbay's own bound (hook_timeout_ms, after which the
 * hook fails open by itself) plus a margin, so the client never kills a hook that is still deciding.
 */
const clientTimeoutS = (hookTimeoutMs: number) => Math.ceil(hookTimeoutMs / 1000) + 5;

const config = z.strictObject({
  scope: z.enum(["local", "project", "user"]).default("local").meta({
    description:
      'Which settings file install edits: "local" .claude/settings.local.json, "project" .claude/settings.json, "user" ~/.claude/settings.json.',
  }),
});

type Scope = z.output<typeof config>["scope"];

function settingsFile(env: AdapterEnv, scope: Scope): string {
  if (scope === "user") return path.join(env.home, ".claude", "settings.json");
  return path.join(env.projectDir, ".claude", scope === "project" ? "settings.json" : "settings.local.json");
}

export default defineAdapter({
  id: "claude-code",
  displayName: CLIENT,
  client: { command: "claude", versionArgs: ["--version"], certificationName: "claude-code" },
  fastHook: "src/hooks.ts",
  certifyDriver: "src/certify.ts",
  capabilities: JSON_HOOKS_CAPABILITIES,
  config,
  create(cfg, ctx) {
    return {
      ...jsonHooksAdapter({
        file: (env) => settingsFile(env, cfg.scope),
        wired: WIRED,
        timeout: clientTimeoutS(cfg.hook_timeout_ms),
        protocol,
        protect: cfg.protect,
      }),
      // Session start and end need nothing from Claude Code beyond the event itself; they are logged.
      startSession(event) {
        ctx.log.debug("session started", { session: event.sessionId });
        return { ok: true };
      },
      endSession(event) {
        ctx.log.debug("session ended", { session: event.sessionId });
        return { ok: true };
      },
    };
  },
});
