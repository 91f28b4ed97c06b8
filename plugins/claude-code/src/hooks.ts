/**
 * Claude Code's hook protocol, as the reference notes measured it: the event names, the payload
 * fields normalizeHook whitelists, and the response envelopes. A wrong envelope fails silently
 * (the write goes through), so these shapes are the adapter's most important facts.
 */
import { normalizedEvent } from "patchbay/adapter";
import type { EventKind, HookOutcome, NormalizedEvent } from "patchbay/adapter";

export const CLIENT = "Claude Code";

/** hook_event_name → normalized kind. Unknown names are refused, never guessed. */
export const EVENTS: Readonly<Record<string, EventKind>> = Object.freeze({
  SessionStart: "sessionStart",
  SessionEnd: "sessionEnd",
  UserPromptSubmit: "beforeTurn",
  PreToolUse: "beforeTool",
  PostToolUse: "afterTool",
  Stop: "turnEnd",
  SubagentStop: "childEnd",
  PreCompact: "other",
  Notification: "other",
});

/** Tools whose input names the file they write (MultiEdit and NotebookEdit included: the reference system's matcher missed them). */
export const WRITE_TOOLS: Readonly<Record<string, string>> = Object.freeze({
  Write: "file_path",
  Edit: "file_path",
  MultiEdit: "file_path",
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
    throw new Error(`${CLIENT} hook was wired for ${nameOf(eventArg)} but the payload is ${nameOf(payload.hook_event_name)}`);
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
  return normalizedEvent({ kind, sessionId, cwd, model: str(payload.model), parentSessionId: null, tool, targets: target ? [target] : [] });
}

/** The event name an envelope must carry: Claude Code ignores hookSpecificOutput for another event. */
const ENVELOPE_EVENT: Partial<Record<EventKind, string>> = { beforeTurn: "UserPromptSubmit", sessionStart: "SessionStart", afterTool: "PostToolUse", beforeTool: "PreToolUse" };

export function denyOutcome(reason: string): HookOutcome {
  const envelope = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } };
  return { stdout: JSON.stringify(envelope), stderr: "", exitCode: 0 };
}

export function injectOutcome(text: string, event?: NormalizedEvent | null): HookOutcome {
  if (text === "") return { stdout: "", stderr: "", exitCode: 0 };
  const hookEventName = (event && ENVELOPE_EVENT[event.kind]) ?? "UserPromptSubmit";
  return { stdout: JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: text } }), stderr: "", exitCode: 0 };
}
