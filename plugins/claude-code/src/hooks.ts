/**
 * Claude Code's hook protocol, as captured from the real client (fixtures/captures/): the event
 * names, the payload fields normalizeHook whitelists, and the response envelopes. A wrong envelope fails silently
 * (the write goes through), so these shapes are the adapter's most important facts.
 */
import { hookEvents, jsonHookProtocol, permissionDenyOutcome, writeToolTargets } from "patchbay/adapter";

export const CLIENT = "Claude Code";

/**
 * hook_event_name → normalized kind, for every event Claude Code 2.1.197 declares (30; captured
 * with `patchbay adapter certify`). Events with no normalized meaning are "other"; a name the
 * client never declared is refused, never guessed.
 */
export const EVENTS = hookEvents({
  sessionStart: ["SessionStart"],
  sessionEnd: ["SessionEnd"],
  beforeTurn: ["UserPromptSubmit"],
  beforeTool: ["PreToolUse"],
  afterTool: ["PostToolUse", "PostToolUseFailure"],
  turnEnd: ["Stop", "StopFailure"],
  childStart: ["SubagentStart"],
  childEnd: ["SubagentStop"],
  other: [
    "PostToolBatch",
    "Notification",
    "UserPromptExpansion",
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
  ],
});

/**
 * Tools whose input names the file they write. There is no MultiEdit in Claude Code 2.x. Bash is
 * deliberately absent: a shell command's writes cannot be read reliably from its text, so `protect`
 * does not cover Bash (docs/adapters.md, "Bash and protected paths"); guards.beforeShell is not declared.
 */
export const WRITE_TOOLS: Readonly<Record<string, string>> = Object.freeze({
  Write: "file_path",
  Edit: "file_path",
  NotebookEdit: "notebook_path",
});

/**
 * The protocol, from the facts above: only session_id, cwd, model, agent_id (present only on calls
 * made inside a subagent), tool_name and the write path survive a payload. Claude Code silently
 * ignores hookSpecificOutput named for another event, so each envelope carries the event it answers.
 */
export const protocol = jsonHookProtocol({
  client: CLIENT,
  events: EVENTS,
  targets: writeToolTargets(WRITE_TOOLS),
  keep: { model: true, agentId: true },
  contextEvent: {
    byKind: {
      beforeTurn: "UserPromptSubmit",
      sessionStart: "SessionStart",
      afterTool: "PostToolUse",
      beforeTool: "PreToolUse",
    },
    otherwise: "UserPromptSubmit",
  },
  deny: (reason) => permissionDenyOutcome(reason, "PreToolUse"),
});

/*
 * The fast hook path's entry points (defineAdapter's `fastHook` names this file): the host runs
 * them in-process for PreToolUse, without a worker; the worker methods in index.ts call the same
 * functions, so both paths decide alike.
 */
export const { normalizeHook, denyOutcome, injectOutcome, guardWrite, startSession, endSession } = protocol;
export const normalizeClaudeHook = normalizeHook;
