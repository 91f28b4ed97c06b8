/**
 * The demo MCP server's bundle (dist/servers/demo-mcp.mjs, scripts/bundle-cli.mjs), which the
 * default connectors.json starts on every `npm start`: one file, without the SDK parts the demo
 * server never runs (ajv, the elicitation-answer validator; zod 3 and its JSON Schema converter),
 * and still a whole MCP server.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const BUNDLE = path.join(ROOT, "dist", "servers", "demo-mcp.mjs");

describe("the bundled demo MCP server", () => {
  it("imports nothing but Node built-ins and carries no ajv, zod 3 or zod-to-json-schema", () => {
    const code = readFileSync(BUNDLE, "utf8");
    const imports = [...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((m) => m[1]);
    expect(imports.every((s) => s.startsWith("node:"))).toBe(true);
    expect(code).not.toMatch(/^\/\/ node_modules\/(ajv|ajv-formats|fast-uri|zod-to-json-schema|zod\/v3)\//m);
    expect(code).toContain("carries no JSON Schema validator");
  });

  it("serves its tools over stdio: initialize, tools/list and a call with a structured result", async () => {
    const client = new Client({ name: "bundle-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BUNDLE],
        env: { PATH: process.env.PATH ?? "" },
        stderr: "ignore",
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe("patchbay-demo");
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["echo", "add", "time", "fail", "slow"]));
      // `add` has an outputSchema: the SDK client checks the structured result against it (with its own ajv).
      const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
      expect(sum.structuredContent).toEqual({ sum: 5 });
      const echo = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(echo.content).toEqual([{ type: "text", text: "hi" }]);
    } finally {
      await client.close();
    }
  });
});
