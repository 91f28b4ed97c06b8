/**
 * Which captured events can back which capability, and the check certify applies to a run's
 * captures. The same relation is what certification.ts checks at load: an evidence entry whose
 * capture is of an unrelated event (a SessionEnd "proving" a write guard) does not count.
 */
import type { EventKind } from "../../adapter-sdk/contract.js";

/** Capability → the normalized kinds whose capture can back it. */
export const BACKING_KINDS: Readonly<Record<string, readonly EventKind[]>> = Object.freeze({
  "lifecycle.sessionStart": ["sessionStart"],
  "lifecycle.sessionResume": ["sessionStart"],
  "lifecycle.sessionEnd": ["sessionEnd"],
  "lifecycle.heartbeat": ["heartbeat"],
  "lifecycle.childSessions": ["childStart", "childEnd", "beforeTool"],
  "context.startupInjection": ["sessionStart"],
  "context.beforeTurnInjection": ["beforeTurn"],
  "context.safePointInjection": ["afterTool"],
  "guards.beforeRead": ["beforeTool"],
  "guards.beforeWrite": ["beforeTool"],
  "guards.beforeShell": ["beforeTool"],
  "delivery.nextTurn": ["beforeTurn", "sessionStart"],
  "delivery.livePush": ["other"],
  "delivery.replyRoute": ["other"],
});

export interface Capture {
  name: string;
  event: string;
  tool: string | null;
  kind: EventKind | null;
  agentId: string | null;
  /** The adapter's normalized event at capture time (the kit checks the adapter still agrees). */
  normalized: unknown;
  payload: Record<string, unknown>;
  /** What the client did with the adapter's answer (blocked, injected text seen in a later request). */
  reaction: Record<string, unknown>;
}

export interface Verdict {
  pass: boolean;
  capture: Capture | null;
  notes: string;
}

/** The capture that proves a capability in one run, if any, and why. */
export function checkCapability(capability: string, captures: readonly Capture[]): Verdict {
  const kinds = BACKING_KINDS[capability] ?? [];
  // In the table's order of preference (delivery.nextTurn: a beforeTurn capture before a sessionStart one).
  const related = kinds.flatMap((k) => captures.filter((c) => c.kind === k));
  const first = related[0] ?? null;
  switch (capability) {
    case "lifecycle.sessionStart":
    case "lifecycle.sessionEnd":
      return first
        ? { pass: true, capture: first, notes: `${first.event} fired and normalized to ${first.kind}.` }
        : { pass: false, capture: null, notes: "the event never fired in the scripted turn." };
    case "context.startupInjection":
    case "context.beforeTurnInjection":
    case "context.safePointInjection":
    case "delivery.nextTurn": {
      const seen = related.find((c) => c.reaction.injectedReachedModel === true);
      if (seen)
        return {
          pass: true,
          capture: seen,
          notes: `the adapter's injectOutcome on ${seen.event} reached the next model API request.`,
        };
      return {
        pass: false,
        capture: first,
        notes: first ? `injected text on ${first.event} never reached a request body.` : "no related event fired.",
      };
    }
    case "guards.beforeWrite": {
      const blocked = related.find((c) => c.reaction.decision === "deny" && c.reaction.blocked === true);
      if (blocked)
        return {
          pass: true,
          capture: blocked,
          notes: `${blocked.tool} into a protected folder: decide() denied, the client did not write the file and told the model.`,
        };
      const tried = related.find((c) => c.reaction.decision !== undefined) ?? first;
      return {
        pass: false,
        capture: tried,
        notes: tried
          ? `the deny on ${tried.event} ${tried.tool ?? ""} did not block the write.`
          : "no write reached PreToolUse.",
      };
    }
    case "lifecycle.childSessions": {
      const child = related.find((c) => c.agentId !== null);
      return child
        ? { pass: true, capture: child, notes: `${child.event} inside a subagent carried agent_id.` }
        : { pass: false, capture: null, notes: "no subagent call carried agent_id." };
    }
    default:
      return { pass: false, capture: first, notes: `certify does not exercise ${capability}.` };
  }
}
