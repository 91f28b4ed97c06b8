/**
 * mcp-remote against the mcp kit, booted by the host like any plugin, talking to the real demo
 * MCP server (official SDK): once as a child process on stdio, once over Streamable HTTP. Then,
 * through the host, the connection survives the HTTP server restarting on the same port.
 */
import { afterAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { createHost, registerConformance } from "patchbay/testing";
import { deadPort, startDemoHttp, STDIO_SERVER } from "./demo-server.js";

const plugin = fileURLToPath(new URL("..", import.meta.url));
const mcp = {
  call: { tool: "echo", args: { text: "hello" } },
  errorCall: { tool: "fail", args: { message: "the kit asked for a failure" } },
};

await registerConformance("mcp", {
  plugin,
  config: { command: "node", args: [STDIO_SERVER], connect_timeout_ms: 5_000 },
  // The child starts and dies at once: connect fails, health must say false.
  invalidConfig: { command: "node", args: [`${STDIO_SERVER}.missing`], connect_timeout_ms: 2_000 },
  mcp,
});

// The reference server: resources, prompts and server_info exercise the kit's optional-method claims.
const EVERYTHING = fileURLToPath(
  new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
await registerConformance("mcp", {
  plugin,
  config: { command: "node", args: [EVERYTHING, "stdio"], connect_timeout_ms: 10_000 },
  invalidConfig: { command: "node", args: [`${EVERYTHING}.missing`], connect_timeout_ms: 2_000 },
  mcp: {
    call: { tool: "echo", args: { message: "hello" } },
    errorCall: { tool: "get-sum", args: { a: "not a number", b: 1 } },
  },
});

const http = await startDemoHttp();
afterAll(() => http.stop());

await registerConformance("mcp", {
  plugin,
  config: { url: http.url, connect_timeout_ms: 5_000 },
  invalidConfig: { url: `http://127.0.0.1:${await deadPort()}/mcp`, connect_timeout_ms: 2_000 },
  mcp,
});

describe("mcp-remote through the host", () => {
  it("reconnects after the HTTP server restarts on the same port", async () => {
    let server = await startDemoHttp();
    const host = await createHost({
      config: {
        plugins: [],
        mcpConnectors: { demo: { plugin: "mcp-remote", config: { url: server.url }, timeout_ms: 10_000 } },
      },
      logLevel: "silent",
    });
    try {
      const echo = () =>
        host.mcp("demo").call("echo", { text: "still there" }) as Promise<{ content: { text: string }[] }>;
      expect((await echo()).content[0].text).toBe("still there");
      await server.stop();
      server = await startDemoHttp(server.port);
      // The old session is unknown to the new server (404); the plugin opens a new one and retries.
      expect((await echo()).content[0].text).toBe("still there");
      expect(host.report().instances[0].state).toBe("ready");
    } finally {
      await host.close();
      await server.stop();
    }
  });

  it("keeps a tool's error text and the instance alive (isError is PB_ERR_TOOL_ERROR, not a crash)", async () => {
    const host = await createHost({
      config: { plugins: [], mcpConnectors: { demo: { plugin: "mcp-remote", config: { url: http.url } } } },
      logLevel: "silent",
    });
    try {
      await expect(host.mcp("demo").call("fail", { message: "disk full" })).rejects.toMatchObject({
        code: "PB_ERR_TOOL_ERROR",
        message: expect.stringContaining("disk full"),
      });
      await expect(host.mcp("demo").call("add", { a: 2, b: 3 })).resolves.toMatchObject({
        structuredContent: { sum: 5 },
      });
    } finally {
      await host.close();
    }
  });
});
