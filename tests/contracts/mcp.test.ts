/**
 * The mcp rules the host enforces, with fixtures that break them: MCP's isError semantics (a
 * tool error is PB_ERR_TOOL_ERROR carrying the tool's text, and the instance lives on) and
 * list_tools answering unique names. allowed_tools and identity merging are covered in
 * tests/boundary/calls.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, writeConfig } from "../helpers.js";

let host: Host;

beforeAll(async () => {
  const { file } = writeConfig({
    mcpConnectors: {
      tools: { plugin: "fx-mcp-tool-error" },
      dup: { plugin: "fx-mcp-tool-error", config: { duplicate: true } },
      narrow: { plugin: "fx-mcp-tool-error", allowed_tools: ["ok"] },
    },
  });
  host = await createHost({ config: file, logLevel: "silent" });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

describe("mcp contract, enforced by the host", () => {
  it("turns isError into PB_ERR_TOOL_ERROR carrying the tool's text, and the instance keeps working", async () => {
    const err = (await host
      .mcp("tools")
      .call("fail", {})
      .catch((e) => e)) as Error;
    expect(err).toMatchObject({ code: "PB_ERR_TOOL_ERROR", data: { tool: "fail" } });
    expect(err.message).toContain("quota exceeded for project 7");
    await expect(host.mcp("tools").call("ok", {})).resolves.toEqual({ content: [{ type: "text", text: "fine" }] });
  });

  it("refuses a list_tools that names a tool twice", async () => {
    await expect(host.mcp("tools").list_tools()).resolves.toHaveLength(2);
    await expect(host.mcp("dup").list_tools()).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining('"ok" twice'),
    });
  });

  it("shows and allows only allowed_tools, on both call forms", async () => {
    await expect(host.mcp("narrow").list_tools()).resolves.toEqual([{ name: "ok" }]);
    await expect(host.mcp("narrow").call("fail", {})).rejects.toMatchObject({ code: "PB_ERR_TOOL_DENIED" });
    await expect(host.call("mcpConnectors/narrow", "call", ["fail", {}])).rejects.toMatchObject({
      code: "PB_ERR_TOOL_DENIED",
    });
  });
});
