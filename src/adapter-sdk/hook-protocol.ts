/**
 * The hook protocol of a client that pipes one JSON object per hook to the command's stdin, in the
 * shape Claude Code, Codex and Gemini CLI share (`hook_event_name`, `session_id`, `cwd`,
 * `tool_name`, `tool_input`), built once from an adapter's facts: its event names, which tools
 * write which files, which envelope it honours. The whitelist, the wired-for-another-event check
 * and the bounds are the same for every such client, so a new adapter states facts and copies no
 * parser. Zod-free, so a `fastHook` module can use it (slim.ts).
 */
import type { EventKind, GuardDecision, HookOutcome, NormalizedEvent } from "./contract.js";
import { normalizedEvent } from "./event.js";
import { guardProtected } from "./helpers.js";
import { additionalContextOutcome } from "./outcomes.js";

export interface JsonHookProtocolSpec {
  /** The client's display name, in error messages and guard reasons. */
  client: string;
  /** hook_event_name → normalized kind, for every event the client declares; any other name is refused. */
  events: Readonly<Record<string, EventKind>>;
  /** The files a beforeTool call would write, from its tool name and tool_input (default: none). Throw to refuse. */
  targets?(tool: string, input: Readonly<Record<string, unknown>>): string[];
  /** Payload fields kept beyond session_id, cwd and tool_name (default: neither). */
  keep?: { model?: boolean; agentId?: boolean };
  /** The hook event name an additionalContext envelope must carry, per kind, and for any other kind. */
  contextEvent: { byKind: Partial<Record<EventKind, string>>; otherwise: string };
  /** The deny envelope the client honours (e.g. permissionDenyOutcome(reason, "PreToolUse")). */
  deny(reason: string): HookOutcome;
}

/** What an adapter's fastHook module exports, and its worker methods call. */
export interface JsonHookProtocol {
  normalizeHook(payload: unknown, event: string | null): NormalizedEvent;
  denyOutcome(reason: string): HookOutcome;
  injectOutcome(text: string, event?: NormalizedEvent | null): HookOutcome;
  guardWrite(event: NormalizedEvent, protect: readonly string[]): GuardDecision;
  /** Session start and end, for a client whose sessions need nothing beyond the event itself. */
  startSession(event: NormalizedEvent): { ok: true };
  endSession(event: NormalizedEvent): { ok: true };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === "object" && !Array.isArray(v);
/** A bounded non-empty string, else null: a hostile payload's 10 MB field is dropped, not copied. */
const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 && v.length <= 4096 ? v : null);
/** An event name safe to quote in an error (the payload is untrusted). */
const nameOf = (v: unknown) => (typeof v === "string" && /^[A-Za-z]{1,40}$/.test(v) ? v : "(not a name)");

/**
 * The frozen hook_event_name → kind table from the client's names per kind (`other` for events with
 * no normalized meaning): every event the client declares, so a name it never declared is refused.
 */
export function hookEvents(
  byKind: Partial<Readonly<Record<EventKind, readonly string[]>>>,
): Readonly<Record<string, EventKind>> {
  // No prototype: a client's event named "__proto__" or "constructor" is a name like any other.
  const table: Record<string, EventKind> = Object.create(null);
  for (const [kind, names] of Object.entries(byKind) as [EventKind, readonly string[]][])
    for (const name of names) table[name] = kind;
  return Object.freeze(table);
}

/** `targets` for tools that each write the one file named by a tool_input key: { Write: "file_path" }. */
export function writeToolTargets(
  tools: Readonly<Record<string, string>>,
): (tool: string, input: Readonly<Record<string, unknown>>) => string[] {
  return (tool, input) => {
    const key = Object.hasOwn(tools, tool) ? tools[tool] : null;
    const target = key ? str(input[key]) : null;
    return target ? [target] : [];
  };
}

export function jsonHookProtocol(spec: JsonHookProtocolSpec): JsonHookProtocol {
  const { client, events } = spec;
  /**
   * Whitelist, never a filter: only session_id, cwd, tool_name, the write targets and what `keep`
   * names survive. Prompts, transcripts, tool contents and responses are never kept.
   */
  function normalizeHook(payload: unknown, eventArg: string | null): NormalizedEvent {
    if (!isObj(payload)) throw new Error(`${client} hook payload is not a JSON object`);
    const name = payload.hook_event_name ?? eventArg;
    if (eventArg !== null && payload.hook_event_name !== undefined && payload.hook_event_name !== eventArg) {
      throw new Error(
        `${client} hook was wired for ${nameOf(eventArg)} but the payload is ${nameOf(payload.hook_event_name)}`,
      );
    }
    const kind = typeof name === "string" && Object.hasOwn(events, name) ? events[name] : null;
    if (!kind) throw new Error(`unrecognised ${client} hook event ${nameOf(name)}`);
    const sessionId = str(payload.session_id);
    const cwd = str(payload.cwd);
    if (!sessionId || !cwd) throw new Error(`${client} hook payload has no session id or working directory`);
    const tool = kind === "beforeTool" || kind === "afterTool" ? str(payload.tool_name) : null;
    const input = isObj(payload.tool_input) ? payload.tool_input : {};
    return normalizedEvent({
      kind,
      sessionId,
      cwd,
      model: spec.keep?.model ? str(payload.model) : null,
      parentSessionId: null,
      // agent_id is present only on calls made inside a subagent; the session id stays the parent's.
      agentId: spec.keep?.agentId ? str(payload.agent_id) : null,
      tool,
      targets: kind === "beforeTool" && tool && spec.targets ? spec.targets(tool, input) : [],
    });
  }
  return {
    normalizeHook,
    denyOutcome: (reason) => spec.deny(reason),
    injectOutcome: (text, event) =>
      additionalContextOutcome(text, (event && spec.contextEvent.byKind[event.kind]) ?? spec.contextEvent.otherwise),
    guardWrite: (event, protect) => guardProtected(event, protect, client),
    startSession: () => ({ ok: true }),
    endSession: () => ({ ok: true }),
  };
}
