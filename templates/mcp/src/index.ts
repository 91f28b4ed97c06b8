/**
 * __NAME__: an MCP connector plugin for Patchbay.
 *
 * As scaffolded it serves three tools itself (echo, add, whoami) and answers in the MCP
 * CallToolResult shape ({ content: [...], structuredContent?, isError? }), so callers see the
 * same thing they would from a real server. Each place you change to reach your substrate (an
 * MCP server through @modelcontextprotocol/sdk, or any HTTP API you expose as tools) is marked
 * "SUBSTRATE:". The host enforces the instance's allowed_tools on both call() and list_tools()
 * and merges its configured identity into ctxOverrides before a call reaches you: you never
 * see a denied tool, and you need not filter. A tool that declares an outputSchema must answer
 * matching structuredContent: the host checks it (PB_ERR_CONTRACT_VIOLATION otherwise).
 *
 * Optional methods, each declared in plugin.json "capabilities" when you add it (MCP's own
 * shapes, see docs/contracts.md): list_resources, read_resource, list_resource_templates,
 * list_prompts, get_prompt, server_info. Long calls may report progress with ctx.progress?.().
 */
import { definePlugin, z } from "patchbay/plugin";
import type { McpConnector, McpDispatchCtx, ToolDescriptor } from "patchbay/plugin";

// SUBSTRATE: your server's settings, e.g. a url and a token. A token marked
// .meta({ secret: true }) is scrubbed from every log line, error and report.
const config = z.strictObject({
  greeting: z.string().default("hello").meta({ description: "What the echo tool puts before the text." }),
  token: z
    .string()
    .min(1)
    .optional()
    .meta({ secret: true, description: "An example secret: never printed by Patchbay." }),
});

/** The tools this connector offers. SUBSTRATE: list your server's tools instead (tools/list). */
const TOOLS: ToolDescriptor[] = [
  {
    name: "echo",
    description: "Say the text back, after the configured greeting.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  {
    name: "add",
    title: "Add",
    description: "Add two numbers.",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    // The host checks every successful answer's structuredContent against this.
    outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
    annotations: { readOnlyHint: true },
  },
  {
    name: "whoami",
    description: "Report the identity this call carries (the instance's configured identity merged over the caller's).",
    inputSchema: { type: "object", properties: {} },
  },
];

/** Argument schemas, checked here because the host only knows that args is an object. */
const ARGS = {
  echo: z.object({ text: z.string() }),
  add: z.object({ a: z.number(), b: z.number() }),
  whoami: z.object({}),
};

const text = (value: string, structured?: Record<string, unknown>) => ({
  content: [{ type: "text", text: value }],
  ...(structured ? { structuredContent: structured } : {}),
});

/** A tool-level failure: the host turns it into PB_ERR_TOOL_ERROR with this text for the caller. */
const toolError = (message: string) => ({ isError: true, content: [{ type: "text", text: message }] });

export default definePlugin({
  kind: "mcp",
  config,
  create(cfg, ctx): McpConnector {
    // SUBSTRATE: create your MCP client here, but connect lazily (create() has a start deadline):
    //   const client = new Client({ name: "__NAME__", version: "0.1.0" });
    //   await client.connect(new StreamableHTTPClientTransport(new URL(cfg.url)))   // on first use

    return {
      async health_check() {
        // SUBSTRATE: check that the server answers (a ping or a tools/list), quickly.
        return true;
      },

      async list_tools(): Promise<ToolDescriptor[]> {
        return TOOLS;
      },

      async call(tool: string, args: Record<string, unknown>, ctxOverrides?: McpDispatchCtx): Promise<unknown> {
        // SUBSTRATE: forward to your server, passing ctx.signal and ctx.remainingMs() so the
        // request ends with the host's deadline, e.g.
        //   return client.callTool({ name: tool, arguments: args }, undefined, { signal: ctx.signal, timeout: ctx.remainingMs() });
        if (!Object.hasOwn(ARGS, tool))
          return toolError(`unknown tool "${tool}" (tools: ${TOOLS.map((t) => t.name).join(", ")})`);
        const parsed = ARGS[tool as keyof typeof ARGS].safeParse(args);
        if (!parsed.success)
          return toolError(
            `${tool}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "args"}: ${i.message}`).join("; ")}`,
          );
        ctx.log.debug("tool call", { tool, agentId: ctxOverrides?.agentId });
        switch (tool) {
          case "echo": {
            const { text: said } = parsed.data as z.infer<typeof ARGS.echo>;
            return text(`${cfg.greeting} ${said}`.trim());
          }
          case "add": {
            const { a, b } = parsed.data as z.infer<typeof ARGS.add>;
            return text(String(a + b), { sum: a + b });
          }
          default:
            return text(JSON.stringify(ctxOverrides ?? {}), { identity: ctxOverrides ?? {} });
        }
      },

      async close() {
        // SUBSTRATE: close your client (await client.close()).
      },
    };
  },
});
