/**
 * The Gemini CLI protocol facts in src/hooks.ts: normalizeHook is a whitelist that refuses what
 * Gemini never sends, write_file/replace name the write target (run_shell_command never does), and
 * the deny/inject envelopes are the shapes Gemini honours (not Claude Code's permissionDecision).
 */
import { describe, expect, it } from "vitest";
import { denyOutcome, injectOutcome, normalizeHook } from "../src/hooks.js";

const base = { session_id: "s1", cwd: "/w", transcript_path: "/secret/t.jsonl", timestamp: "2026-01-01T00:00:00Z" };

describe("gemini-cli normalizeHook", () => {
  it("keeps only the whitelisted fields", () => {
    const e = normalizeHook({ ...base, hook_event_name: "BeforeAgent", prompt: "my secret prompt" }, "BeforeAgent");
    expect(e).toEqual({
      kind: "beforeTurn",
      sessionId: "s1",
      cwd: "/w",
      model: null,
      parentSessionId: null,
      agentId: null,
      tool: null,
      targets: [],
    });
    expect(JSON.stringify(e)).not.toMatch(/secret/);
  });

  it("reads the path write_file and replace write, and none from a shell command", () => {
    for (const tool of ["write_file", "replace"]) {
      expect(
        normalizeHook(
          {
            ...base,
            hook_event_name: "BeforeTool",
            tool_name: tool,
            tool_input: { file_path: "/w/a.txt", content: "x" },
          },
          "BeforeTool",
        ).targets,
      ).toEqual(["/w/a.txt"]);
    }
    expect(
      normalizeHook(
        {
          ...base,
          hook_event_name: "BeforeTool",
          tool_name: "run_shell_command",
          tool_input: { command: "echo x > a" },
        },
        "BeforeTool",
      ).targets,
    ).toEqual([]);
  });

  it("refuses unknown events, mismatched wiring, non-objects and missing ids", () => {
    expect(() => normalizeHook({ ...base, hook_event_name: "PreToolUse" }, "PreToolUse")).toThrow(
      /unrecognised Gemini CLI hook event PreToolUse/,
    );
    expect(() => normalizeHook({ ...base, hook_event_name: "AfterAgent" }, "BeforeTool")).toThrow(
      /wired for BeforeTool but the payload is AfterAgent/,
    );
    expect(() => normalizeHook("x".repeat(10 * 1024 * 1024), null)).toThrow(/not a JSON object/);
    expect(() => normalizeHook({ hook_event_name: "SessionEnd", session_id: "s" }, null)).toThrow(/no session id/);
  });
});

describe("gemini-cli envelopes", () => {
  it("denies with {decision: deny} (exit 0), not Claude Code's ignored permissionDecision", () => {
    const o = denyOutcome("no");
    expect(o.exitCode).toBe(0);
    expect(JSON.parse(o.stdout)).toEqual({ decision: "deny", reason: "no" });
  });

  it("injects additionalContext under the event's own name, and says nothing for empty text", () => {
    const turn = normalizeHook({ ...base, hook_event_name: "BeforeAgent" }, "BeforeAgent");
    expect(JSON.parse(injectOutcome("hi", turn).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "BeforeAgent", additionalContext: "hi" },
    });
    expect(injectOutcome("", turn)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });
});
