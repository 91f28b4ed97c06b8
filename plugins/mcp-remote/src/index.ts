/**
 * mcp-remote: one MCP server behind the `mcp` contract, through the official SDK client.
 * `url` speaks Streamable HTTP; `command` starts the server as a child process on stdio. The
 * tool result is returned as the server sent it ({content, structuredContent?, isError?}); the
 * host decides what isError means for the caller.
 */
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import { definePlugin, z } from "patchbay/plugin";
import type { McpConnector, McpDispatchCtx, ToolDescriptor } from "patchbay/plugin";
import { Connection, requestTimeout } from "./connection.js";

/** A server that keeps handing out cursors is broken; stop rather than loop until the deadline. */
const MAX_TOOL_PAGES = 1_000;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const secretText = z.string().meta({ secret: true });

const config = z
  .strictObject({
    url: z
      .string()
      .refine(isHttpUrl, "url must be an http:// or https:// URL")
      .optional()
      .meta({ description: "Streamable HTTP endpoint of the server, e.g. https://mcp.example.com/mcp. Exactly one of url and command." }),
    headers: z
      .record(z.string(), secretText)
      .optional()
      .meta({ secret: true, description: "HTTP headers sent with every request (url only); values are secrets, scrubbed from all output." }),
    command: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Program that serves MCP on stdio ("node" runs this Node). Exactly one of url and command.' }),
    args: z.array(z.string()).default([]).meta({ description: "Arguments for command. Visible in the process list: pass secrets through env instead." }),
    cwd: z.string().default(".").meta({ path: true, description: "Working folder of the command (relative to connectors.json)." }),
    env: z
      .record(z.string(), secretText)
      .optional()
      .meta({ secret: true, description: "Environment for the command, on top of a minimal safe set (PATH, HOME, ...); values are secrets." }),
    connect_timeout_ms: z.number().int().positive().default(10_000).meta({ description: "How long connecting (start + initialize) may take." }),
  })
  .superRefine((c, issue) => {
    if ((c.url === undefined) === (c.command === undefined)) {
      issue.addIssue({ code: "custom", message: "set exactly one of url (Streamable HTTP) and command (stdio)", path: [c.url === undefined ? "url" : "command"] });
    }
    if (c.url !== undefined) {
      if (c.env !== undefined) issue.addIssue({ code: "custom", message: "env applies to command only", path: ["env"] });
      if (c.args.length > 0) issue.addIssue({ code: "custom", message: "args apply to command only", path: ["args"] });
    }
    if (c.command !== undefined && c.headers !== undefined) {
      issue.addIssue({ code: "custom", message: "headers apply to url only", path: ["headers"] });
    }
  });

function toDescriptor(tool: { name: string; description?: string; inputSchema?: unknown }): ToolDescriptor {
  const out: ToolDescriptor = { name: tool.name };
  if (typeof tool.description === "string") out.description = tool.description;
  if (tool.inputSchema && typeof tool.inputSchema === "object") out.inputSchema = tool.inputSchema as Record<string, unknown>;
  return out;
}

export default definePlugin({
  kind: "mcp",
  config,
  create(cfg, ctx): McpConnector {
    const connection = new Connection(cfg, ctx);
    const callDeadline = () => Date.now() + ctx.remainingMs();

    return {
      async health_check() {
        try {
          // Bounded by the host's health budget, and by connect_timeout_ms when called without one.
          const deadline = Date.now() + Math.min(ctx.remainingMs(), cfg.connect_timeout_ms);
          await connection.run("ping", deadline, true, (client, timeout) => client.ping({ timeout, signal: ctx.signal }));
          return true;
        } catch (err) {
          ctx.log.warn("health check failed", { target: connection.target, error: (err as Error).message });
          return false;
        }
      },

      async list_tools() {
        const deadline = callDeadline();
        return connection.run("tools/list", deadline, true, async (client) => {
          const tools: ToolDescriptor[] = [];
          const seen = new Set<string>();
          let cursor: string | undefined;
          for (let page = 0; page < MAX_TOOL_PAGES; page++) {
            // Every page gets what is left of the one deadline.
            const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: requestTimeout(deadline), signal: ctx.signal });
            tools.push(...result.tools.map(toDescriptor));
            cursor = result.nextCursor;
            if (cursor === undefined) return tools;
            if (seen.has(cursor)) throw new Error(`tools/list: ${connection.target} repeated the pagination cursor ${JSON.stringify(cursor)}`);
            seen.add(cursor);
          }
          throw new Error(`tools/list: ${connection.target} returned more than ${MAX_TOOL_PAGES} pages`);
        });
      },

      async call(tool: string, args: Record<string, unknown>, ctxOverrides?: McpDispatchCtx) {
        const params: CallToolRequest["params"] = { name: tool, arguments: args ?? {} };
        if (ctxOverrides && Object.keys(ctxOverrides).length > 0) {
          params._meta = { patchbay_identity: ctxOverrides } as CallToolRequest["params"]["_meta"];
        }
        return connection.run(`tools/call "${tool}"`, callDeadline(), false, (client, timeout) =>
          client.callTool(params, undefined, { timeout, signal: ctx.signal }),
        );
      },

      async close() {
        await connection.close();
      },
    };
  },
});
