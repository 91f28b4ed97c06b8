/**
 * The demo MCP server's tools, served over stdio by servers/demo-mcp.mjs and over Streamable
 * HTTP by servers/demo-mcp-http.mjs.
 *
 * Tools: echo {text}, add {a, b}, time, fail {message?}, slow {ms}, whoami (the identity a
 * client sent in the request's `_meta.patchbay_identity`, or null).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

/** Upper bound for `slow`, so a typo cannot park a server for hours. */
const MAX_SLOW_MS = 600_000;

export function createDemoServer() {
  const server = new McpServer({ name: "patchbay-demo", version: "1.0.0" });

  server.registerTool(
    "echo",
    { description: "Returns the text it was given.", inputSchema: { text: z.string().describe("Text to send back") } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );

  server.registerTool(
    "add",
    {
      description: "Adds two numbers.",
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => {
      const sum = a + b;
      return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
    },
  );

  server.registerTool("time", { description: "The server's current time (ISO 8601, UTC)." }, async () => ({
    content: [{ type: "text", text: new Date().toISOString() }],
  }));

  server.registerTool(
    "fail",
    {
      description: "Always reports a tool error (isError: true), for testing error paths.",
      inputSchema: { message: z.string().optional() },
    },
    async ({ message }) => ({
      content: [{ type: "text", text: message ?? "the fail tool always fails" }],
      isError: true,
    }),
  );

  server.registerTool(
    "slow",
    {
      description: "Waits `ms` milliseconds, then answers. Stops early when the request is cancelled.",
      inputSchema: { ms: z.number().int().min(0).max(MAX_SLOW_MS) },
    },
    async ({ ms }, extra) => {
      // One progress notification when it starts, so a client can tell the call reached the server.
      const token = extra._meta?.progressToken;
      if (token !== undefined)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: 0, message: "started" },
        });
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        extra.signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            reject(new Error("cancelled"));
          },
          { once: true },
        );
      });
      return { content: [{ type: "text", text: `waited ${ms} ms` }] };
    },
  );

  server.registerTool(
    "whoami",
    { description: "Returns the caller identity sent in _meta.patchbay_identity (JSON), or null." },
    async (extra) => {
      const identity = extra._meta?.patchbay_identity ?? null;
      return { content: [{ type: "text", text: JSON.stringify(identity) }] };
    },
  );

  return server;
}

/** Serves the demo tools on stdin/stdout until the client closes stdin or a signal arrives. */
export async function serveStdio() {
  const server = createDemoServer();
  const transport = new StdioServerTransport();
  const shutdown = () => {
    server.close().finally(() => process.exit(0));
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  // The client closing our stdin is the normal way a stdio server is told to stop.
  process.stdin.on("end", shutdown);
  await server.connect(transport);
}
