/**
 * The host's outputSchema check (src/guard/mcp-checks.ts): each tool's schema is taken from the
 * list_tools answer as text and compiled when a result of that tool first needs it. What a caller
 * does to the tools it was given cannot change the check; a schema the host cannot use fails only
 * the calls of its own tool, with the reason.
 */
import { describe, expect, it } from "vitest";
import { checkMcpResult } from "../../src/guard/mcp-checks.js";

const countSchema = {
  type: "object",
  properties: { count: { type: "number" } },
  required: ["count"],
};

function listed(tools: Record<string, unknown>[]) {
  const target = { instance: "mcpConnectors/up" };
  checkMcpResult(target, "list_tools", [], tools);
  return {
    call: (tool: string, result: unknown) => checkMcpResult(target, "call", [tool, {}], result),
  };
}

const structured = (value: unknown) => ({ content: [], structuredContent: value });

describe("outputSchema checks", () => {
  it("holds a result to its tool's schema and lets tools without one answer anything", () => {
    const up = listed([
      { name: "counted", inputSchema: { type: "object" }, outputSchema: countSchema },
      { name: "free", inputSchema: { type: "object" } },
    ]);
    expect(() => up.call("counted", structured({ count: 3 }))).not.toThrow();
    expect(() => up.call("counted", structured({ count: "three" }))).toThrow(
      /PB_ERR_CONTRACT_VIOLATION|does not match its own outputSchema/,
    );
    expect(() => up.call("counted", { content: [] })).toThrow(
      /declares an outputSchema but answered no structuredContent/,
    );
    expect(() => up.call("free", structured({ anything: true }))).not.toThrow();
  });

  it("checks against the schema as listed, whatever the caller later does to the tool objects", () => {
    const tools = [{ name: "counted", inputSchema: { type: "object" }, outputSchema: structuredClone(countSchema) }];
    const up = listed(tools);
    // The caller of list_tools owns what it got back; loosening it must not loosen the host's check.
    (tools[0].outputSchema as { required: string[] }).required = [];
    (tools[0].outputSchema as { properties: Record<string, unknown> }).properties.count = {};
    expect(() => up.call("counted", structured({ count: "three" }))).toThrow(/does not match its own outputSchema/);
    expect(() => up.call("counted", structured({}))).toThrow(/does not match its own outputSchema/);
  });

  it("a schema the host cannot use fails the calls of its own tool, with the reason, and no other", () => {
    const huge = { type: "object", description: "x".repeat(300 * 1024) };
    const up = listed([
      { name: "broken", inputSchema: { type: "object" }, outputSchema: { type: 12 } },
      { name: "huge", inputSchema: { type: "object" }, outputSchema: huge },
      { name: "counted", inputSchema: { type: "object" }, outputSchema: countSchema },
    ]);
    expect(() => up.call("broken", structured({}))).toThrow(
      /tool "broken" declares an output schema the host cannot use: its outputSchema is not a valid JSON Schema/,
    );
    // The reason is kept: the second call gets the same answer, not a retry.
    expect(() => up.call("broken", structured({}))).toThrow(/not a valid JSON Schema/);
    expect(() => up.call("huge", structured({}))).toThrow(/its outputSchema is larger than 262144 characters/);
    expect(() => up.call("counted", structured({ count: 1 }))).not.toThrow();
    // A tool's own error result is not held to its schema, usable or not.
    expect(() => up.call("broken", { content: [{ type: "text", text: "failed" }], isError: true })).not.toThrow();
  });

  it("a new listing replaces the schemas of the last one", () => {
    const target = { instance: "mcpConnectors/up" };
    checkMcpResult(
      target,
      "list_tools",
      [],
      [{ name: "t", inputSchema: { type: "object" }, outputSchema: countSchema }],
    );
    expect(() => checkMcpResult(target, "call", ["t", {}], structured({ count: 1 }))).not.toThrow();
    checkMcpResult(
      target,
      "list_tools",
      [],
      [{ name: "t", inputSchema: { type: "object" }, outputSchema: { type: "object", required: ["label"] } }],
    );
    expect(() => checkMcpResult(target, "call", ["t", {}], structured({ count: 1 }))).toThrow(
      /does not match its own outputSchema/,
    );
  });
});
