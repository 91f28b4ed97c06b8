/**
 * Which capability makes an event kind do something: the lifecycle method it notifies and the
 * context capability that lets it carry injected text. Shared by hook-decide.ts (the full path)
 * and src/cli/hook-fast.ts, which must agree on when there is nothing to do. Dependency-free.
 */
import type { EventKind } from "../adapter-sdk/event-kinds.js";

export const LIFECYCLE: Readonly<Partial<Record<EventKind, { key: string; method: string }>>> = Object.freeze({
  sessionStart: { key: "lifecycle.sessionStart", method: "startSession" },
  sessionEnd: { key: "lifecycle.sessionEnd", method: "endSession" },
  heartbeat: { key: "lifecycle.heartbeat", method: "heartbeat" },
  childStart: { key: "lifecycle.childSessions", method: "mapChildSession" },
});

/** Which context capability lets an event kind carry injected text. */
export const INJECTION: Readonly<Partial<Record<EventKind, string>>> = Object.freeze({
  sessionStart: "context.startupInjection",
  beforeTurn: "context.beforeTurnInjection",
  afterTool: "context.safePointInjection",
});
