/**
 * Gemini CLI's hook protocol, as captured from the real client (fixtures/captures/): the event
 * names, the payload fields normalizeHook whitelists, and the response envelopes. Gemini ignores
 * Claude Code's `hookSpecificOutput.permissionDecision` (the write happens) and `{"continue":false}`
 * stops the whole agent, so the shapes below are the ones measured to block and to inject.
 */
import { hookEvents, jsonHookProtocol, writeToolTargets } from "patchbay/adapter";

export const CLIENT = "Gemini CLI";

/** hook_event_name → normalized kind for every event Gemini CLI 0.61 declares; others are refused. */
export const EVENTS = hookEvents({
  sessionStart: ["SessionStart"],
  sessionEnd: ["SessionEnd"],
  beforeTurn: ["BeforeAgent"],
  turnEnd: ["AfterAgent"],
  beforeTool: ["BeforeTool"],
  afterTool: ["AfterTool"],
  other: ["BeforeModel", "AfterModel", "BeforeToolSelection", "PreCompress", "Notification"],
});

/**
 * Tools whose input names the file they write. `run_shell_command` is deliberately absent: a
 * command's writes cannot be read from its text (docs/adapters.md, "Bash and protected paths").
 */
export const WRITE_TOOLS: Readonly<Record<string, string>> = Object.freeze({
  write_file: "file_path",
  replace: "file_path",
});

/**
 * The protocol, from the facts above: only session_id, cwd, tool_name and the write path survive
 * a payload (the prompt, transcript_path, timestamp, llm_request/response and tool contents never).
 * additionalContext reaches the next request as a `<hook_context>` part; plain stdout never does.
 */
export const protocol = jsonHookProtocol({
  client: CLIENT,
  events: EVENTS,
  targets: writeToolTargets(WRITE_TOOLS),
  contextEvent: {
    byKind: { beforeTurn: "BeforeAgent", sessionStart: "SessionStart", afterTool: "AfterTool" },
    otherwise: "BeforeAgent",
  },
  // `{"decision":"deny","reason"}`, exit 0: the model sees `{"error":"Tool execution blocked: <reason>"}`.
  deny: (reason) => ({ stdout: JSON.stringify({ decision: "deny", reason }), stderr: "", exitCode: 0 }),
});

/* The fast hook path's entry points (defineAdapter's `fastHook` names this file). */
export const { normalizeHook, denyOutcome, injectOutcome, guardWrite, startSession, endSession } = protocol;
