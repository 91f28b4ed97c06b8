/**
 * Claude Code's hook protocol, as captured from the real client (fixtures/captures/): the event
 * names, the payload fields normalizeHook whitelists, and the response envelopes. A wrong envelope fails silently
 * (the write goes through), so these shapes are the adapter's most important facts.
 */
import { additionalContextOutcome, guardProtected, normalizedEvent, permissionDenyOutcome } from "patchbay/adapter";
import type { EventKind, GuardDecision, HookOutcome, NormalizedEvent } from "patchbay/adapter";

export const CLIENT = "Claude Code";

/**
 * hook_event_name → normalized kind, for every event Claude Code 2.1.197 declares (30; captured
 * with `patchbay adapter certify`). Events with no normalized meaning are "other"; a name the
 * client never declared is refused, never guessed.
 */
export const EVENTS: Readonly<Record<string, EventKind>> = Object.freeze({
  SessionStart: "sessionStart",
  SessionEnd: "sessionEnd",
  UserPromptSubmit: "beforeTurn",
  PreToolUse: "beforeTool",
  PostToolUse: "afterTool",
  PostToolUseFailure: "afterTool",
  Stop: "turnEnd",
  StopFailure: "turnEnd",
  SubagentStart: "childStart",
  SubagentStop: "childEnd",
  ...Object.fromEntries(
    [
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
    ].map((name) => [name, "other" as EventKind]),
  ),
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

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);
const nameOf = (v: unknown) => (typeof v === "string" && /^[A-Za-z]{1,40}$/.test(v) ? v : "(not a name)");

/**
 * Whitelist, never a filter: only session_id, cwd, model, tool_name and the write path survive.
 * The prompt, transcript_path, tool contents and tool responses are never read.
 */
export function normalizeClaudeHook(payload: unknown, eventArg: string | null): NormalizedEvent {
  if (!isObj(payload)) throw new Error(`${CLIENT} hook payload is not a JSON object`);
  const name = payload.hook_event_name ?? eventArg;
  if (eventArg !== null && payload.hook_event_name !== undefined && payload.hook_event_name !== eventArg) {
    throw new Error(
      `${CLIENT} hook was wired for ${nameOf(eventArg)} but the payload is ${nameOf(payload.hook_event_name)}`,
    );
  }
  const kind = typeof name === "string" && Object.hasOwn(EVENTS, name) ? EVENTS[name] : null;
  if (!kind) throw new Error(`unrecognised ${CLIENT} hook event ${nameOf(name)}`);
  const sessionId = str(payload.session_id);
  const cwd = str(payload.cwd);
  if (!sessionId || !cwd) throw new Error(`${CLIENT} hook payload has no session id or working directory`);
  const tool = kind === "beforeTool" || kind === "afterTool" ? str(payload.tool_name) : null;
  const input = isObj(payload.tool_input) ? payload.tool_input : {};
  const key = tool && Object.hasOwn(WRITE_TOOLS, tool) ? WRITE_TOOLS[tool] : null;
  const target = kind === "beforeTool" && key ? str(input[key]) : null;
  // agent_id is present only on calls made inside a subagent; the session id stays the parent's.
  return normalizedEvent({
    kind,
    sessionId,
    cwd,
    model: str(payload.model),
    parentSessionId: null,
    agentId: str(payload.agent_id),
    tool,
    targets: target ? [target] : [],
  });
}

/** The event name an envelope must carry: Claude Code silently ignores hookSpecificOutput for another event. */
const ENVELOPE_EVENT: Partial<Record<EventKind, string>> = {
  beforeTurn: "UserPromptSubmit",
  sessionStart: "SessionStart",
  afterTool: "PostToolUse",
  beforeTool: "PreToolUse",
};

export function denyOutcome(reason: string): HookOutcome {
  return permissionDenyOutcome(reason, "PreToolUse");
}

export function injectOutcome(text: string, event?: NormalizedEvent | null): HookOutcome {
  return additionalContextOutcome(text, (event && ENVELOPE_EVENT[event.kind]) ?? "UserPromptSubmit");
}

/*
 * The fast hook path's entry points (defineAdapter's `fastHook` names this file): the host runs
 * them in-process for PreToolUse, without a worker; the worker methods in index.ts call the same
 * functions, so both paths decide alike.
 */
export const normalizeHook = (payload: unknown, event: string | null): NormalizedEvent =>
  normalizeClaudeHook(payload, event);

export function guardWrite(event: NormalizedEvent, protect: readonly string[]): GuardDecision {
  return guardProtected(event, protect, CLIENT);
}

/** Session start and end need nothing from Claude Code beyond the event itself. */
export function startSession(_event: NormalizedEvent): { ok: true } {
  return { ok: true };
}

export function endSession(_event: NormalizedEvent): { ok: true } {
  return { ok: true };
}
