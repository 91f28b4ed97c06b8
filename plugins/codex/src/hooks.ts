/**
 * Codex's hook protocol, as captured from the real client (fixtures/captures/): the event names,
 * the payload fields normalizeHook whitelists, and the response envelopes. Codex ignores an
 * envelope it does not know ({"decision":"deny"}, {"continue":false}, exit 1 all let the tool run),
 * so these shapes are the adapter's most important facts.
 */
import { hookEvents, jsonHookProtocol, permissionDenyOutcome } from "patchbay/adapter";

export const CLIENT = "Codex";

/**
 * hook_event_name → normalized kind for every event Codex 0.169/0.171 declares (its app-server's
 * HookEventName). A name it never declared is refused, never guessed.
 */
export const EVENTS = hookEvents({
  sessionStart: ["SessionStart"],
  sessionEnd: ["SessionEnd"],
  beforeTurn: ["UserPromptSubmit"],
  beforeTool: ["PreToolUse"],
  afterTool: ["PostToolUse"],
  turnEnd: ["Stop"],
  childStart: ["SubagentStart"],
  childEnd: ["SubagentStop"],
  other: ["PermissionRequest", "PreCompact", "PostCompact", "PreModelRequest", "PostModelRequest", "Interrupt"],
});

/**
 * The tool whose input names the files it writes: `apply_patch` (offered for models Codex has
 * metadata for), whose `tool_input.command` is the patch. The shell tool (hook name "Bash") is
 * deliberately not read: a command's writes cannot be known from its text (docs/adapters.md).
 */
export const PATCH_TOOL = "apply_patch";

/** Hard bounds, so a hostile payload costs nothing: a patch over 1 MB or 256 files is refused whole. */
const MAX_PATCH = 1024 * 1024;
const MAX_TARGETS = 256;

/** Every file an apply_patch patch adds, updates, deletes or moves to (as written: relative to cwd or absolute). */
export function patchTargets(patch: string): string[] {
  if (patch.length > MAX_PATCH) throw new Error(`${CLIENT} apply_patch input is over ${MAX_PATCH} bytes`);
  const out: string[] = [];
  for (const line of patch.split("\n")) {
    const m = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line.replace(/\r$/, ""));
    if (!m) continue;
    const file = m[1].trim();
    if (file && !out.includes(file)) out.push(file);
    if (out.length > MAX_TARGETS) throw new Error(`${CLIENT} apply_patch names more than ${MAX_TARGETS} files`);
  }
  return out;
}

/**
 * The protocol, from the facts above: only session_id, cwd, model, tool_name and apply_patch's file
 * names survive a payload (the prompt, transcript_path, turn_id, tool contents and responses never).
 * The deny Codex honours at PreToolUse is hookSpecificOutput.permissionDecision "deny", exit 0 (the
 * reason reaches the model as the tool's output); `{"decision":"deny"}` is silently ignored.
 * additionalContext arrives in the next model request as a `developer` message.
 */
export const protocol = jsonHookProtocol({
  client: CLIENT,
  events: EVENTS,
  targets: (tool, input) =>
    tool === PATCH_TOOL && typeof input.command === "string" ? patchTargets(input.command) : [],
  keep: { model: true },
  contextEvent: {
    byKind: { beforeTurn: "UserPromptSubmit", sessionStart: "SessionStart", afterTool: "PostToolUse" },
    otherwise: "UserPromptSubmit",
  },
  deny: (reason) => permissionDenyOutcome(reason, "PreToolUse"),
});

/* The fast hook path's entry points (defineAdapter's `fastHook` names this file). */
export const { normalizeHook, denyOutcome, injectOutcome, guardWrite, startSession, endSession } = protocol;
