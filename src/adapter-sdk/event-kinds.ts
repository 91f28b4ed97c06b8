/**
 * The normalized event's kinds and keys, in a module with no dependencies: the fast hook path
 * (src/adapter/hook-fast.ts) builds events without loading zod.
 */
export const EVENT_KINDS = [
  "sessionStart",
  "sessionEnd",
  "heartbeat",
  "beforeTurn",
  "beforeTool",
  "afterTool",
  "turnEnd",
  "childStart",
  "childEnd",
  "other",
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/**
 * Exactly these eight keys (agentId: the subagent a call came from); nothing else from a client
 * payload may survive normalization.
 */
export const EVENT_KEYS = [
  "kind",
  "sessionId",
  "cwd",
  "model",
  "parentSessionId",
  "agentId",
  "tool",
  "targets",
] as const;
