/**
 * The `hookSpecificOutput` envelopes several clients share (Claude Code's shape, which Codex and
 * Gemini CLI took over for context, and Codex for deny too): JSON on stdout, exit 0, named for the
 * event it answers, because a client silently ignores an envelope named for another event. Which
 * event name and which envelope a client honours stay the adapter's facts; the bytes are built here
 * once. Zod-free, so a `fastHook` module can use them (slim.ts).
 */
import type { HookOutcome } from "./contract.js";

/** Injected context as `additionalContext`; empty text injects nothing (no output at all). */
export function additionalContextOutcome(text: string, hookEventName: string): HookOutcome {
  if (text === "") return { stdout: "", stderr: "", exitCode: 0 };
  return {
    stdout: JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: text } }),
    stderr: "",
    exitCode: 0,
  };
}

/** A tool call refused as `permissionDecision: "deny"`, its reason passed on to the model. */
export function permissionDenyOutcome(reason: string, hookEventName: string): HookOutcome {
  const envelope = {
    hookSpecificOutput: { hookEventName, permissionDecision: "deny", permissionDecisionReason: reason },
  };
  return { stdout: JSON.stringify(envelope), stderr: "", exitCode: 0 };
}
