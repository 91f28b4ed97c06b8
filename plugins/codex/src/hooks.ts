/**
 * Codex's hook protocol, as captured from the real client (fixtures/captures/): the event names,
 * the payload fields normalizeHook whitelists, and the response envelopes. Codex ignores an
 * envelope it does not know ({"decision":"deny"}, {"continue":false}, exit 1 all let the tool run),
 * so these shapes are the adapter's most important facts.
 */
import { additionalContextOutcome, guardProtected, normalizedEvent, permissionDenyOutcome } from "patchbay/adapter";
import type { EventKind, GuardDecision, HookOutcome, NormalizedEvent } from "patchbay/adapter";

export const CLIENT = "Codex";

/**
 * hook_event_name → normalized kind for every event Codex 0.169/0.171 declares (its app-server's
 * HookEventName). A name it never declared is refused, never guessed.
 */
export const EVENTS: Readonly<Record<string, EventKind>> = Object.freeze({
  SessionStart: "sessionStart",
  SessionEnd: "sessionEnd",
  UserPromptSubmit: "beforeTurn",
  PreToolUse: "beforeTool",
  PostToolUse: "afterTool",
  Stop: "turnEnd",
  SubagentStart: "childStart",
  SubagentStop: "childEnd",
  ...Object.fromEntries(
    ["PermissionRequest", "PreCompact", "PostCompact", "PreModelRequest", "PostModelRequest", "Interrupt"].map((n) => [
      n,
      "other" as EventKind,
    ]),
  ),
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

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 && v.length <= 4096 ? v : null);
const nameOf = (v: unknown) => (typeof v === "string" && /^[A-Za-z]{1,40}$/.test(v) ? v : "(not a name)");

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
 * Whitelist, never a filter: only session_id, cwd, model, tool_name and apply_patch's file names
 * survive. The prompt, transcript_path, turn_id, tool contents and responses are never kept.
 */
export function normalizeCodexHook(payload: unknown, eventArg: string | null): NormalizedEvent {
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
  const patch =
    kind === "beforeTool" && tool === PATCH_TOOL && typeof input.command === "string" ? input.command : null;
  return normalizedEvent({
    kind,
    sessionId,
    cwd,
    model: str(payload.model),
    parentSessionId: null,
    agentId: null,
    tool,
    targets: patch ? patchTargets(patch) : [],
  });
}

/**
 * The deny Codex honours at PreToolUse: hookSpecificOutput.permissionDecision "deny", exit 0 (the
 * reason reaches the model as the tool's output). `{"decision":"deny"}` is silently ignored.
 */
export function denyOutcome(reason: string): HookOutcome {
  return permissionDenyOutcome(reason, "PreToolUse");
}

const ENVELOPE_EVENT: Partial<Record<EventKind, string>> = {
  beforeTurn: "UserPromptSubmit",
  sessionStart: "SessionStart",
  afterTool: "PostToolUse",
};

/** additionalContext arrives in the next model request as a `developer` message. */
export function injectOutcome(text: string, event?: NormalizedEvent | null): HookOutcome {
  return additionalContextOutcome(text, (event && ENVELOPE_EVENT[event.kind]) ?? "UserPromptSubmit");
}

/* The fast hook path's entry points (defineAdapter's `fastHook` names this file). */
export const normalizeHook = (payload: unknown, event: string | null): NormalizedEvent =>
  normalizeCodexHook(payload, event);

export function guardWrite(event: NormalizedEvent, protect: readonly string[]): GuardDecision {
  return guardProtected(event, protect, CLIENT);
}
