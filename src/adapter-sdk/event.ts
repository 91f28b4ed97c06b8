/**
 * The closed, frozen normalized event. normalizeHook() builds it with normalizedEvent(), a
 * whitelist: exactly eight keys, absent values null or [], anything else refused by name. The
 * hook runner checks the event again on its side of the boundary, so an adapter cannot widen it.
 */
import { pbError, type PatchbayError } from "../errors.js";
import type { NormalizedEvent } from "./contract.js";
import { EVENT_KEYS, EVENT_KINDS, type EventKind } from "./event-kinds.js";

export interface EventFields {
  kind: EventKind;
  sessionId: string;
  cwd: string;
  model?: string | null;
  parentSessionId?: string | null;
  agentId?: string | null;
  tool?: string | null;
  targets?: readonly string[];
}

const MAX_TEXT = 4096;
const MAX_TARGETS = 256;

function invalid(message: string, field: string): PatchbayError {
  return pbError("PB_ERR_HOOK_PAYLOAD_INVALID", `normalized event: ${message}`, { field });
}

function optionalText(fields: Record<string, unknown>, key: string): string | null {
  const value = fields[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_TEXT)
    throw invalid(`${key} must be a non-empty string (at most ${MAX_TEXT} characters) or null`, key);
  return value;
}

/** Builds (and checks) a normalized event; throws PB_ERR_HOOK_PAYLOAD_INVALID naming the field. */
export function normalizedEvent(fields: EventFields): NormalizedEvent {
  if (!fields || typeof fields !== "object" || Array.isArray(fields)) throw invalid("must be an object", "(event)");
  const raw = fields as unknown as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (!(EVENT_KEYS as readonly string[]).includes(key))
      throw invalid(`unknown field: ${key} (allowed: ${EVENT_KEYS.join(", ")})`, key);
  }
  if (!(EVENT_KINDS as readonly unknown[]).includes(raw.kind))
    throw invalid(`unknown kind ${JSON.stringify(raw.kind)} (kinds: ${EVENT_KINDS.join(", ")})`, "kind");
  const sessionId = optionalText(raw, "sessionId");
  if (sessionId === null) throw invalid("has no session id", "sessionId");
  const cwd = optionalText(raw, "cwd");
  if (cwd === null) throw invalid("has no working directory", "cwd");
  const targets = raw.targets ?? [];
  if (!Array.isArray(targets)) throw invalid("targets must be an array", "targets");
  if (targets.length > MAX_TARGETS) throw invalid(`targets holds more than ${MAX_TARGETS} paths`, "targets");
  for (const t of targets) {
    if (typeof t !== "string" || t.length === 0 || t.length > MAX_TEXT)
      throw invalid("each target must be a non-empty string", "targets");
  }
  const event = {
    kind: raw.kind as EventKind,
    sessionId,
    cwd,
    model: optionalText(raw, "model"),
    parentSessionId: optionalText(raw, "parentSessionId"),
    agentId: optionalText(raw, "agentId"),
    tool: optionalText(raw, "tool"),
    targets: Object.freeze([...(targets as string[])]),
  };
  return Object.freeze(event);
}

/** Deep-freezes plain data (manifests, events) so no stage can change what another sees. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
