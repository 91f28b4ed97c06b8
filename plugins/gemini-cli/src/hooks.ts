/**
 * Gemini CLI's hook protocol, as captured from the real client (fixtures/captures/): the event
 * names, the payload fields normalizeHook whitelists, and the response envelopes. Gemini ignores
 * Claude Code's `hookSpecificOutput.permissionDecision` (the write happens) and `{"continue":false}`
 * stops the whole agent, so the shapes below are the ones measured to block and to inject.
 */
import { additionalContextOutcome, guardProtected, normalizedEvent } from "patchbay/adapter";
import type { EventKind, GuardDecision, HookOutcome, NormalizedEvent } from "patchbay/adapter";

export const CLIENT = "Gemini CLI";

/** hook_event_name → normalized kind for every event Gemini CLI 0.61 declares; others are refused. */
export const EVENTS: Readonly<Record<string, EventKind>> = Object.freeze({
  SessionStart: "sessionStart",
  SessionEnd: "sessionEnd",
  BeforeAgent: "beforeTurn",
  AfterAgent: "turnEnd",
  BeforeTool: "beforeTool",
  AfterTool: "afterTool",
  ...Object.fromEntries(
    ["BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress", "Notification"].map((n) => [
      n,
      "other" as EventKind,
    ]),
  ),
});

/**
 * Tools whose input names the file they write. `run_shell_command` is deliberately absent: a
 * command's writes cannot be read from its text (docs/adapters.md, "Bash and protected paths").
 */
export const WRITE_TOOLS: Readonly<Record<string, string>> = Object.freeze({
  write_file: "file_path",
  replace: "file_path",
});

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 && v.length <= 4096 ? v : null);
const nameOf = (v: unknown) => (typeof v === "string" && /^[A-Za-z]{1,40}$/.test(v) ? v : "(not a name)");

/**
 * Whitelist, never a filter: only session_id, cwd, tool_name and the write path survive. The
 * prompt, transcript_path, timestamp, llm_request/response and tool contents are never kept.
 */
export function normalizeGeminiHook(payload: unknown, eventArg: string | null): NormalizedEvent {
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
  return normalizedEvent({
    kind,
    sessionId,
    cwd,
    model: null,
    parentSessionId: null,
    agentId: null,
    tool,
    targets: target ? [target] : [],
  });
}

/** `{"decision":"deny","reason"}`, exit 0: the model sees `{"error":"Tool execution blocked: <reason>"}`. */
export function denyOutcome(reason: string): HookOutcome {
  return { stdout: JSON.stringify({ decision: "deny", reason }), stderr: "", exitCode: 0 };
}

const ENVELOPE_EVENT: Partial<Record<EventKind, string>> = {
  beforeTurn: "BeforeAgent",
  sessionStart: "SessionStart",
  afterTool: "AfterTool",
};

/** additionalContext reaches the next request as a `<hook_context>` part; plain stdout never does. */
export function injectOutcome(text: string, event?: NormalizedEvent | null): HookOutcome {
  return additionalContextOutcome(text, (event && ENVELOPE_EVENT[event.kind]) ?? "BeforeAgent");
}

/* The fast hook path's entry points (defineAdapter's `fastHook` names this file). */
export const normalizeHook = (payload: unknown, event: string | null): NormalizedEvent =>
  normalizeGeminiHook(payload, event);

export function guardWrite(event: NormalizedEvent, protect: readonly string[]): GuardDecision {
  return guardProtected(event, protect, CLIENT);
}
