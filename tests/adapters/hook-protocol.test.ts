/**
 * The shared JSON hook protocol (patchbay/adapter's jsonHookProtocol) built from a made-up client's
 * facts, as a fourth adapter would: the whitelist, the refusals, the bounds on hostile input, and
 * the envelopes it names per event.
 */
import { describe, expect, it } from "vitest";
import { hookEvents, jsonHookProtocol, permissionDenyOutcome, writeToolTargets } from "../../src/adapter-sdk/index.js";

const protocol = jsonHookProtocol({
  client: "Acme CLI",
  events: hookEvents({ sessionStart: ["Start"], beforeTurn: ["Prompt"], beforeTool: ["PreTool"], other: ["Tick"] }),
  targets: writeToolTargets({ write_file: "path" }),
  keep: { model: true },
  contextEvent: { byKind: { sessionStart: "Start" }, otherwise: "Prompt" },
  deny: (reason) => permissionDenyOutcome(reason, "PreTool"),
});
const base = { session_id: "s-1", cwd: "/work" };

describe("jsonHookProtocol", () => {
  it("keeps only the whitelisted fields, and the write target of a write tool", () => {
    const event = protocol.normalizeHook(
      {
        ...base,
        hook_event_name: "PreTool",
        tool_name: "write_file",
        tool_input: { path: "/work/a.txt", content: "SECRET-CONTENT" },
        model: "m-1",
        prompt: "SECRET-PROMPT",
        agent_id: "sub-1",
      },
      "PreTool",
    );
    expect(event).toMatchObject({ kind: "beforeTool", tool: "write_file", targets: ["/work/a.txt"], model: "m-1" });
    expect(event.agentId).toBeNull();
    expect(JSON.stringify(event)).not.toMatch(/SECRET/);
    const read = protocol.normalizeHook(
      { ...base, hook_event_name: "PreTool", tool_name: "read_file", tool_input: { path: "/x" } },
      null,
    );
    expect(read.targets).toEqual([]);
  });

  it("refuses an event the client never declared (prototype names too), a payload wired for another event, and non-objects", () => {
    for (const name of ["Imaginary", "__proto__", "constructor", "toString"])
      expect(() => protocol.normalizeHook({ ...base, hook_event_name: name }, null)).toThrow(
        /unrecognised Acme CLI hook event/,
      );
    expect(() => protocol.normalizeHook({ ...base, hook_event_name: "Tick" }, "PreTool")).toThrow(
      /wired for PreTool but the payload is Tick/,
    );
    for (const payload of [null, "text", [base]])
      expect(() => protocol.normalizeHook(payload, "Tick")).toThrow(/not a JSON object/);
    expect(() => protocol.normalizeHook({ hook_event_name: "Tick", cwd: "/" }, null)).toThrow(/no session id/);
  });

  it("drops a 10 MB field instead of copying it, and never quotes a hostile event name", () => {
    const huge = "x".repeat(10 * 1024 * 1024);
    const event = protocol.normalizeHook(
      { ...base, hook_event_name: "PreTool", tool_name: "write_file", tool_input: { path: huge }, model: huge },
      null,
    );
    expect(event.targets).toEqual([]);
    expect(event.model).toBeNull();
    expect(() => protocol.normalizeHook({ ...base, hook_event_name: `<${huge}>` }, null)).toThrow(
      /event \(not a name\)$/,
    );
    expect(() => protocol.normalizeHook({ ...base, session_id: huge, hook_event_name: "Tick" }, null)).toThrow(
      /no session id/,
    );
  });

  it("names each envelope for the event it answers, and denies with the client's own shape", () => {
    const start = protocol.normalizeHook({ ...base, hook_event_name: "Start" }, null);
    expect(JSON.parse(protocol.injectOutcome("hello", start).stdout).hookSpecificOutput.hookEventName).toBe("Start");
    expect(JSON.parse(protocol.injectOutcome("hello", null).stdout).hookSpecificOutput.hookEventName).toBe("Prompt");
    expect(protocol.injectOutcome("", null).stdout).toBe("");
    expect(JSON.parse(protocol.denyOutcome("no").stdout).hookSpecificOutput).toMatchObject({
      hookEventName: "PreTool",
      permissionDecision: "deny",
      permissionDecisionReason: "no",
    });
  });
});
