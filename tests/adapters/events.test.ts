/**
 * The normalized event is closed and frozen, and normalizeHook whitelists: prompts, transcripts,
 * file contents never survive it. Outcomes come back in each client's measured shape.
 */
import { describe, expect, it } from "vitest";
import { normalizedEvent } from "patchbay/adapter";
import { denyOutcome, injectOutcome, normalizeClaudeHook } from "../../plugins/claude-code/src/hooks.js";
import example from "../../plugins/example-adapter/src/index.js";
import { makeCtx } from "../plugins/_ctx.js";

const bad = (fn: () => unknown, message: RegExp) =>
  expect(fn).toThrow(
    expect.objectContaining({ code: "PB_ERR_HOOK_PAYLOAD_INVALID", message: expect.stringMatching(message) }),
  );

describe("normalizedEvent", () => {
  it("refuses an extra field, naming it", () => {
    bad(
      () => normalizedEvent({ kind: "beforeTurn", sessionId: "s", cwd: "/", transcriptPath: "/t" } as never),
      /unknown field: transcriptPath/,
    );
  });

  it("refuses an unknown kind, a missing session id or cwd, and bad targets", () => {
    bad(() => normalizedEvent({ kind: "imaginary", sessionId: "s", cwd: "/" } as never), /unknown kind/);
    bad(() => normalizedEvent({ kind: "other", cwd: "/" } as never), /no session id/);
    bad(() => normalizedEvent({ kind: "other", sessionId: "s" } as never), /no working directory/);
    bad(
      () => normalizedEvent({ kind: "other", sessionId: "s", cwd: "/", targets: "a" } as never),
      /targets must be an array/,
    );
    bad(() => normalizedEvent({ kind: "other", sessionId: "s", cwd: "/", targets: [""] }), /non-empty string/);
  });

  it("has exactly eight keys with null/[] defaults, and is deeply frozen", () => {
    const e = normalizedEvent({ kind: "beforeTool", sessionId: "s", cwd: "/w", targets: ["a"] });
    expect(Object.keys(e).sort()).toEqual([
      "agentId",
      "cwd",
      "kind",
      "model",
      "parentSessionId",
      "sessionId",
      "targets",
      "tool",
    ]);
    expect(e).toEqual({
      kind: "beforeTool",
      sessionId: "s",
      cwd: "/w",
      model: null,
      parentSessionId: null,
      agentId: null,
      tool: null,
      targets: ["a"],
    });
    expect(Object.isFrozen(e) && Object.isFrozen(e.targets)).toBe(true);
    expect(() => (e.targets as string[]).push("b")).toThrow(TypeError);
  });
});

const claude = (event: string, extra: Record<string, unknown>) => ({
  session_id: "sess-1",
  transcript_path: "/home/u/.claude/projects/p/sess-1.jsonl",
  cwd: "/home/u/p",
  permission_mode: "default",
  hook_event_name: event,
  ...extra,
});

describe("claude-code normalizeHook", () => {
  it("drops the prompt, the transcript path and the file content", () => {
    const payloads = [
      claude("UserPromptSubmit", { prompt: "deploy with key sk-live-0042 please" }),
      claude("PreToolUse", {
        tool_name: "Write",
        tool_input: { file_path: "/home/u/p/a.ts", content: "const secret = 'sk-live-0042';" },
      }),
    ];
    for (const p of payloads) {
      const text = JSON.stringify(normalizeClaudeHook(p, null));
      for (const leak of ["sk-live-0042", "transcript", ".jsonl", "deploy", "const secret"])
        expect(text).not.toContain(leak);
    }
  });

  it("takes write targets only from write tools: Read and Bash give none, Edit/NotebookEdit give their path, there is no MultiEdit", () => {
    expect(
      normalizeClaudeHook(claude("PreToolUse", { tool_name: "Read", tool_input: { file_path: "/x" } }), null).targets,
    ).toEqual([]);
    expect(
      normalizeClaudeHook(claude("PreToolUse", { tool_name: "Bash", tool_input: { command: "echo > /x" } }), null)
        .targets,
    ).toEqual([]);
    expect(
      normalizeClaudeHook(claude("PreToolUse", { tool_name: "Edit", tool_input: { file_path: "/x" } }), null).targets,
    ).toEqual(["/x"]);
    expect(
      normalizeClaudeHook(claude("PreToolUse", { tool_name: "MultiEdit", tool_input: { file_path: "/m" } }), null)
        .targets,
    ).toEqual([]);
    expect(
      normalizeClaudeHook(
        claude("PreToolUse", { tool_name: "NotebookEdit", tool_input: { notebook_path: "/n.ipynb" } }),
        null,
      ).targets,
    ).toEqual(["/n.ipynb"]);
  });

  it("refuses an unknown event, a payload without a session, and a payload for another event than the wired one", () => {
    expect(() => normalizeClaudeHook(claude("Imaginary", {}), null)).toThrow(
      /unrecognised Claude Code hook event Imaginary/,
    );
    // Every event 2.1.197 declares is known, most as "other"; a subagent's call carries its agent_id.
    expect(normalizeClaudeHook(claude("CwdChanged", {}), "CwdChanged").kind).toBe("other");
    expect(normalizeClaudeHook(claude("SubagentStart", {}), null).kind).toBe("childStart");
    expect(
      normalizeClaudeHook(
        claude("PreToolUse", {
          agent_id: "a78c",
          agent_type: "general-purpose",
          tool_name: "Write",
          tool_input: { file_path: "/w" },
        }),
        null,
      ),
    ).toMatchObject({ agentId: "a78c", targets: ["/w"] });
    expect(() => normalizeClaudeHook({ hook_event_name: "Stop", cwd: "/" }, null)).toThrow(/no session id/);
    expect(() => normalizeClaudeHook(claude("Stop", {}), "PreToolUse")).toThrow(/wired for PreToolUse/);
    expect(() => normalizeClaudeHook("not json", null)).toThrow();
  });

  it("answers deny and inject in Claude Code's measured envelopes", () => {
    expect(denyOutcome("`src/a.ts` is protected")).toEqual({
      stdout: JSON.stringify({
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "`src/a.ts` is protected",
        },
      }),
      stderr: "",
      exitCode: 0,
    });
    const turn = normalizeClaudeHook(claude("UserPromptSubmit", { prompt: "x" }), null);
    expect(JSON.parse(injectOutcome("hello", turn).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "hello" },
    });
    const start = normalizeClaudeHook(claude("SessionStart", { source: "startup" }), null);
    expect(JSON.parse(injectOutcome("hello", start).stdout).hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(injectOutcome("", turn)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });
});

describe("example adapter outcomes", () => {
  it("denies with exit 2 and the reason on stderr; injects plain stdout", async () => {
    const a = await example.create(example.config.parse({}), makeCtx().ctx);
    expect(await a.denyOutcome!("r")).toEqual({ stdout: "", stderr: "r\n", exitCode: 2 });
    expect(await a.injectOutcome!("")).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(await a.injectOutcome!("ctx")).toEqual({ stdout: "ctx", stderr: "", exitCode: 0 });
  });
});
