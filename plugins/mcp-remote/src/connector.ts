/**
 * The mcp-remote connector (the `mcp` contract's methods) over one Connection. Loaded by
 * index.ts's create() after it started a stdio server, so the MCP SDK this module imports
 * loads while that server boots. Results are returned as the server sent them (MCP's own
 * shapes); the host decides what isError means for the caller and checks structuredContent
 * against the tool's outputSchema, so this plugin sends tools/call as a plain request instead of
 * the SDK's callTool (which would judge first).
 */
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type {
  CallHandle,
  McpConnector,
  McpDispatchCtx,
  PluginContext,
  PluginSpan,
  ToolDescriptor,
} from "patchbay/plugin";
import type { ChildServer } from "./child-server.js";
import type { McpRemoteConfig } from "./config.js";
import { Connection, type RequestOpts, type Session } from "./connection.js";
import type { HttpLink } from "./http-link.js";
import { ChildTransport } from "./child-transport.js";
import { callToolResultShape } from "./fast-shapes.js";
import { ProgressRelay } from "./progress.js";
import { jsonLengthOver } from "./result-size.js";
import { callAsTask } from "./tasks.js";
import { collectPages, toDescriptor } from "./lists.js";
import { ResourceSubscriptions } from "./subscriptions.js";
import { ToldDefinitions } from "./told.js";
import { tracedRequest } from "./trace.js";

/** A tool result larger than this (as JSON) is refused rather than carried across the host. */
const MAX_RESULT_CHARS = 8 * 1024 * 1024;
/** Progress is passed on at most this often per call (the newest held back is sent before the answer). */
const PROGRESS_INTERVAL_MS = 50;

/**
 * A server without the capability has none: its lists are empty rather than a -32601 error (a
 * server of resources only, asked for tools, would otherwise leave the whole instance unlisted).
 */
function offers(client: Client, what: "tools" | "resources" | "prompts"): boolean {
  return client.getServerCapabilities()?.[what] !== undefined;
}

export function createConnector(
  cfg: McpRemoteConfig,
  ctx: PluginContext,
  early: ChildServer | null,
  http: HttpLink | null,
): McpConnector {
  const connection = new Connection(cfg, ctx, early, http);
  // The plugin is defined with callContext "sync": every method reads its call here, before its first await.
  const thisCall = (): CallHandle => ctx.currentCall?.() ?? callOf(ctx);
  const target = () => connection.target;
  const subscriptions = new ResourceSubscriptions(ctx, target);
  const told = new ToldDefinitions(ctx);
  connection.onConnected = (client) => subscriptions.attach(client, cfg.connect_timeout_ms);

  async function callTool(
    call: CallHandle,
    tool: string,
    args: Record<string, unknown>,
    ctxOverrides?: McpDispatchCtx,
    span?: PluginSpan,
  ): Promise<unknown> {
    const params: CallToolRequest["params"] = { name: tool, arguments: args ?? {} };
    if (ctxOverrides && Object.keys(ctxOverrides).length > 0) {
      params._meta = { patchbay_identity: ctxOverrides } as CallToolRequest["params"]["_meta"];
    }
    const relay = new ProgressRelay(call.progress, PROGRESS_INTERVAL_MS);
    // While it runs, the server may ask things of us (sampling, elicitation, roots), within budget.
    const result = await connection.asks
      .during(() =>
        connection.run(`tools/call "${tool}"`, call, false, async (client, opts, session) => {
          // Whether the tool runs only as a task is in the tool list; a new session has not seen it yet.
          // A list read here (a new session, or after list_changed) may define the tool otherwise than
          // the host was told: the call is not sent, and the host reads the list again (told.ts).
          if (!session.tools) told.check(tool, await loadTools(client, opts, session, call.deadline), target());
          const { transport } = session;
          const headers = transport instanceof ChildTransport ? null : connection.traceHeaders;
          if (session.taskTools.has(tool))
            return tracedRequest(span, params, headers, () => callAsTask(client, params, opts, ctx, relay.report));
          // A stdio session's own requests skip the Client's request machinery (direct-requests.ts).
          if (transport instanceof ChildTransport)
            return tracedRequest(span, params, null, () =>
              transport.direct.request("tools/call", params, callToolResultShape, opts, relay.report),
            );
          return tracedRequest(span, params, headers, () =>
            client.request({ method: "tools/call", params }, callToolResultShape, {
              ...opts,
              // Giving onprogress makes the SDK send a progressToken; the caller sees it as the call's progress.
              onprogress: relay.report,
            }),
          );
        }),
      )
      .finally(() => relay.flush());
    const size = jsonLengthOver(result, MAX_RESULT_CHARS);
    if (size !== null) {
      throw new Error(
        `tools/call "${tool}": ${connection.target} answered ${size} characters, more than the ${MAX_RESULT_CHARS} mcp-remote carries`,
      );
    }
    return result;
  }

  /** tools/list to the end, cached on the session until list_changed; notes the task-only tools. */
  async function loadTools(
    client: Client,
    opts: RequestOpts,
    session: Session,
    deadline: number,
  ): Promise<ToolDescriptor[]> {
    if (session.tools) return session.tools;
    if (!offers(client, "tools")) {
      session.taskTools = new Set();
      session.tools = [];
      return session.tools;
    }
    const raw = await collectPages(
      "tools/list",
      target(),
      deadline,
      opts.signal,
      (cursor, o) => client.listTools(cursor === undefined ? undefined : { cursor }, o),
      (r) => r.tools,
    );
    session.taskTools = new Set(raw.filter((t) => t.execution?.taskSupport === "required").map((t) => t.name));
    session.tools = raw.map(toDescriptor);
    return session.tools;
  }

  return {
    async health_check() {
      try {
        // Inside the host's health budget (answering false beats a health timeout), and connect_timeout_ms.
        const call = thisCall();
        const budget = Math.max(0, call.deadline - Date.now());
        // A quarter of the budget (at most 500 ms) is kept back: the answer must still cross to the host in time under load.
        const deadline = Date.now() + Math.min(budget - Math.min(500, budget * 0.25), cfg.connect_timeout_ms);
        await connection.run("ping", { deadline, signal: call.signal }, true, (client, opts) => client.ping(opts), 0);
        return true;
      } catch (err) {
        ctx.log.warn("health check failed", { target: connection.target, error: (err as Error).message });
        return false;
      }
    },

    async server_info() {
      return connection.run("initialize", thisCall(), true, async (_client, _opts, session) =>
        connection.serverInfo(session),
      );
    },

    async list_tools() {
      const call = thisCall();
      const tools = await connection.run("tools/list", call, true, (client, opts, session) =>
        loadTools(client, opts, session, call.deadline),
      );
      told.remember(tools);
      return tools;
    },

    call(tool: string, args: Record<string, unknown>, ctxOverrides?: McpDispatchCtx) {
      const call = thisCall();
      // Traced: the plugin's work is a span of the caller's trace (read now: the call is found synchronously).
      if (!call.traceparent || !ctx.trace) return callTool(call, tool, args, ctxOverrides);
      return ctx.trace.span(`mcp-remote ${tool}`, (span) => callTool(call, tool, args, ctxOverrides, span), {
        attributes: { "gen_ai.tool.name": tool },
      });
    },

    async list_resources() {
      const call = thisCall();
      return connection.run("resources/list", call, true, async (client, opts) =>
        !offers(client, "resources")
          ? []
          : collectPages(
              "resources/list",
              target(),
              call.deadline,
              opts.signal,
              (cursor, o) => client.listResources(cursor === undefined ? undefined : { cursor }, o),
              (r) => r.resources,
            ),
      );
    },

    async list_resource_templates() {
      const call = thisCall();
      return connection.run("resources/templates/list", call, true, async (client, opts) =>
        !offers(client, "resources")
          ? []
          : collectPages(
              "resources/templates/list",
              target(),
              call.deadline,
              opts.signal,
              (cursor, o) => client.listResourceTemplates(cursor === undefined ? undefined : { cursor }, o),
              (r) => r.resourceTemplates,
            ),
      );
    },

    async read_resource(uri: string) {
      return connection.run(`resources/read "${uri}"`, thisCall(), true, (client, opts) =>
        client.readResource({ uri }, opts),
      );
    },

    // Idempotent on the server (a set of URIs), so retried after a lost connection like a read.
    async subscribe_resource(uri: string) {
      await connection.run(`resources/subscribe "${uri}"`, thisCall(), true, (client, opts) =>
        subscriptions.subscribe(client, uri, opts),
      );
    },

    async unsubscribe_resource(uri: string) {
      await connection.run(`resources/unsubscribe "${uri}"`, thisCall(), true, (client, opts) =>
        subscriptions.unsubscribe(client, uri, opts),
      );
    },

    async list_prompts() {
      const call = thisCall();
      return connection.run("prompts/list", call, true, async (client, opts) =>
        !offers(client, "prompts")
          ? []
          : collectPages(
              "prompts/list",
              target(),
              call.deadline,
              opts.signal,
              (cursor, o) => client.listPrompts(cursor === undefined ? undefined : { cursor }, o),
              (r) => r.prompts,
            ),
      );
    },

    async get_prompt(name: string, args?: Record<string, string>) {
      return connection.run(`prompts/get "${name}"`, thisCall(), true, (client, opts) =>
        client.getPrompt(args === undefined ? { name } : { name, arguments: args }, opts),
      );
    },

    async close() {
      await connection.close();
    },
  };
}

/** The call as the ctx of an older host or a test shows it (no currentCall): read through ctx each time. */
function callOf(ctx: PluginContext): CallHandle {
  return {
    deadline: Date.now() + ctx.remainingMs(),
    get signal() {
      return ctx.signal;
    },
    progress: (update) => ctx.progress?.(update),
  };
}
