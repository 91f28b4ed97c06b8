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
import {
  defineAdapter,
  detectFromProbe,
  hookSettingsMerge,
  notWiredDiagnostic,
  projectContext,
  readSettingsHooks,
  unwiredHooks,
} from "patchbay/adapter";
import type { AdapterEnv, Diagnostic, InstallPlan, WiredHook } from "patchbay/adapter";
import {
  CLIENT,
  denyOutcome,
  endSession,
  guardWrite,
  injectOutcome,
  normalizeHook,
  startSession,
  WRITE_TOOLS,
} from "./hooks.js";

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
  capabilities: {
    lifecycle: { sessionStart: true, sessionEnd: true },
    context: { startupInjection: true, beforeTurnInjection: true },
    guards: { beforeWrite: true },
    delivery: { nextTurn: true },
  },
  config,
  create(cfg, ctx) {
    return {
      detect: (probe) => detectFromProbe(probe),

      doctor(env: AdapterEnv) {
        const file = settingsFile(env, cfg.scope);
        const diagnostics: Diagnostic[] = [];
        const unwired = unwiredHooks(readSettingsHooks(file), env, WIRED);
        const notWired = notWiredDiagnostic(
          file,
          env,
          unwired.map((w) => w.event),
        );
        if (notWired) diagnostics.push(notWired);
        return { ok: true, diagnostics };
      },

      normalizeHook: (payload, { event }) => normalizeHook(payload, event),
      renderContext: (input, opts) => projectContext(input, opts),

      planInstall(env: AdapterEnv): InstallPlan {
        return {
          artifacts: [hookSettingsMerge(settingsFile(env, cfg.scope), env, WIRED, clientTimeoutS(cfg.hook_timeout_ms))],
        };
      },

      denyOutcome: (reason) => denyOutcome(reason),
      injectOutcome: (text, event) => injectOutcome(text, event),
      guardWrite: (event) => guardWrite(event, cfg.protect),
      startSession(event) {
        ctx.log.debug("session started", { session: event.sessionId });
        return startSession(event);
      },
      endSession(event) {
        ctx.log.debug("session ended", { session: event.sessionId });
        return endSession(event);
      },
    };
  },
});
