/**
 * The Codex protocol facts in src/hooks.ts: normalizeHook is a whitelist that refuses what Codex
 * never sends, apply_patch's files are the write targets (Bash's command never is), hostile
 * payloads are refused whole, and the deny/inject envelopes are the shapes Codex honours.
 */
import { describe, expect, it } from "vitest";
import { denyOutcome, injectOutcome, normalizeHook, patchTargets } from "../src/hooks.js";

const base = {
  session_id: "s1",
  cwd: "/w",
  model: "gpt-5.5",
  transcript_path: "/secret/t.jsonl",
  turn_id: "t",
  permission_mode: "bypassPermissions",
};

describe("codex normalizeHook", () => {
  it("keeps only the whitelisted fields", () => {
    const e = normalizeHook(
      { ...base, hook_event_name: "UserPromptSubmit", prompt: "my secret prompt" },
      "UserPromptSubmit",
    );
    expect(e).toEqual({
      kind: "beforeTurn",
      sessionId: "s1",
      cwd: "/w",
      model: "gpt-5.5",
      parentSessionId: null,
      agentId: null,
      tool: null,
      targets: [],
    });
    expect(JSON.stringify(e)).not.toMatch(/secret/);
  });

  it("reads every file an apply_patch names, and none from a shell command", () => {
    const patch =
      "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: /abs/b.txt\n*** Move to: c.txt\n@@\n-x\n+y\n*** Delete File: d.txt\n*** End Patch\n";
    expect(
      normalizeHook(
        { ...base, hook_event_name: "PreToolUse", tool_name: "apply_patch", tool_input: { command: patch } },
        "PreToolUse",
      ).targets,
    ).toEqual(["a.txt", "/abs/b.txt", "c.txt", "d.txt"]);
    expect(
      normalizeHook(
        { ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "echo x > a.txt" } },
        "PreToolUse",
      ).targets,
    ).toEqual([]);
    expect(patchTargets("*** Add File: x\r\n+y\r\n")).toEqual(["x"]);
  });

  it("refuses unknown events, mismatched wiring, non-objects, missing ids and oversized patches", () => {
    expect(() => normalizeHook({ ...base, hook_event_name: "BeforeTool" }, "BeforeTool")).toThrow(
      /unrecognised Codex hook event BeforeTool/,
    );
    expect(() => normalizeHook({ ...base, hook_event_name: "Stop" }, "PreToolUse")).toThrow(
      /wired for PreToolUse but the payload is Stop/,
    );
    expect(() => normalizeHook([1], null)).toThrow(/not a JSON object/);
    expect(() => normalizeHook({ hook_event_name: "Stop", cwd: "/w" }, null)).toThrow(/no session id/);
    const huge = `*** Begin Patch\n*** Add File: a\n+${"x".repeat(10 * 1024 * 1024)}\n*** End Patch\n`;
    expect(() =>
      normalizeHook(
        { ...base, hook_event_name: "PreToolUse", tool_name: "apply_patch", tool_input: { command: huge } },
        "PreToolUse",
      ),
    ).toThrow(/over 1048576 bytes/);
    const many = Array.from({ length: 300 }, (_, i) => `*** Delete File: f${i}`).join("\n");
    expect(() => patchTargets(many)).toThrow(/more than 256 files/);
  });
});

describe("codex envelopes", () => {
  it("denies with PreToolUse permissionDecision deny (exit 0), never the ignored {decision:deny}", () => {
    const o = denyOutcome("no");
    expect(o.exitCode).toBe(0);
    expect(JSON.parse(o.stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no" },
    });
  });

  it("injects additionalContext under the event's own name, and says nothing for empty text", () => {
    const start = normalizeHook({ ...base, hook_event_name: "SessionStart" }, "SessionStart");
    expect(JSON.parse(injectOutcome("hi", start).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "hi" },
    });
    expect(injectOutcome("", start)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });
});
