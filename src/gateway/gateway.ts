/**
 * The MCP gateway: one SDK `Server` per connected client (stdio has one, Streamable HTTP one per
 * session), all answering from one catalog. Every call goes through host.call, so the guard,
 * allowed_tools, deadlines, identity merge and secret scrubbing apply exactly as for embedders.
 * A tool result passes through unchanged; a Patchbay failure becomes a tool error whose text
 * starts with its PB_ERR_* code, so the client's model can read what happened and what to do.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { pbError, toWire, type PatchbayError } from "../errors.js";
import type { Host } from "../host/api.js";
import type { ProgressUpdate } from "../rpc/client.js";
import type { Logger } from "../log.js";
import { packageVersion } from "../paths.js";
import { buildCatalog, catalogKey, type Catalog, type CatalogTool } from "./catalog.js";
import { toPositional } from "./exposure.js";
import { registerPassthrough } from "./resources.js";
import { StatsBook } from "./stats.js";
import { Subscriptions } from "./subscriptions.js";

export interface GatewayOptions {
  expose: Readonly<Record<string, boolean | readonly string[]>>;
  logger: Logger;
}

/** A tool call's arguments may serialize to at most this many bytes (the HTTP body limit is the same). */
export const MAX_ARGS_BYTES = 4 * 1024 * 1024;

type Validator = ((input: unknown) => { valid: boolean; errorMessage?: string }) | null;

export class Gateway {
  readonly stats = new StatsBook();
  private catalog: Catalog = { tools: new Map(), skipped: [], errors: [], passthrough: { resources: [], templates: [], subscribable: [], prompts: [] }, exposed: new Set() };
  private key = "";
  private readonly servers = new Set<Server>();
  private refreshing: Promise<void> | null = null;
  private again = false;
  private readonly validators = new Map<string, Validator>();
  private readonly ajv = new AjvJsonSchemaValidator();

  private expose: GatewayOptions["expose"];
  private readonly subscriptions: Subscriptions;

  constructor(private readonly host: Host, opts: GatewayOptions) {
    this.expose = opts.expose;
    this.subscriptions = new Subscriptions(host, (level, message, to) => {
      for (const s of to) void s.sendLoggingMessage({ level, logger: "patchbay", data: message }).catch(() => undefined);
    });
  }

  /** Builds the first catalog; returns the gateway section's errors (serve refuses to start on them). */
  async start(): Promise<PatchbayError[]> {
    await this.refresh();
    return this.catalog.errors;
  }

  /** After a hot reload: the gateway section now in force. */
  setExpose(expose: GatewayOptions["expose"]): void {
    this.expose = expose;
  }

  toolNames(): string[] {
    return [...this.catalog.tools.keys()];
  }

  /**
   * Rebuilds the catalog (after a health change, a reload, or on each health tick) and tells
   * every client when what it sees changed. Concurrent requests coalesce into one more rebuild.
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        const next = await buildCatalog(this.host, this.expose);
        const key = catalogKey(next);
        this.catalog = next;
        // A restarted or withdrawn instance's subscriptions are renewed or ended.
        this.subscriptions.sync(next.exposed);
        if (key !== this.key) {
          const first = this.key === "";
          this.key = key;
          this.validators.clear();
          if (!first) this.notifyToolsChanged();
        }
      } while (this.again);
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** Tells clients about an instance's health in their log stream (at their chosen level). */
  announce(level: "info" | "warning" | "error", message: string): void {
    for (const s of this.servers) void s.sendLoggingMessage({ level, logger: "patchbay", data: message }).catch(() => undefined);
  }

  /** A new SDK server for one client connection. */
  createServer(): Server {
    const server = new Server(
      { name: "patchbay", version: packageVersion() },
      {
        capabilities: {
          tools: { listChanged: true },
          logging: {},
          // Offered only when an exposed, live connector can answer them (resources.ts, subscriptions.ts).
          ...(this.catalog.passthrough.resources.length > 0 ? { resources: this.catalog.passthrough.subscribable.length > 0 ? { subscribe: true } : {} } : {}),
          ...(this.catalog.passthrough.prompts.length > 0 ? { prompts: {} } : {}),
        },
        instructions: "Patchbay gateway: each tool name says which instance it reaches (<instance>__<tool> for MCP connectors, memory__/skills__/agents__<instance>__<method> for the others).",
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...this.catalog.tools.values()].map((t) => t.tool) }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      // A client that asked for progress (a progressToken) hears the connector's, as notifications/progress.
      const token = req.params._meta?.progressToken;
      const onProgress = token === undefined ? undefined : (u: ProgressUpdate) => {
        void extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...u } }).catch(() => undefined);
      };
      // A client that cancels (notifications/cancelled) or goes away withdraws the call: the plugin is told to stop.
      return this.callTool(req.params.name, req.params.arguments ?? {}, onProgress, extra.signal);
    });
    const p = this.catalog.passthrough;
    if (p.resources.length > 0 || p.prompts.length > 0) {
      const ownerOf = registerPassthrough(server, this.host, () => this.catalog.passthrough);
      if (p.resources.length > 0 && p.subscribable.length > 0) this.subscriptions.register(server, () => this.catalog.passthrough, ownerOf);
    }
    this.servers.add(server);
    server.onclose = () => {
      this.servers.delete(server);
      // A client that leaves unsubscribes what it held (other clients' subscriptions stay).
      this.subscriptions.drop(server);
    };
    return server;
  }

  async callTool(name: string, args: Record<string, unknown>, onProgress?: (update: ProgressUpdate) => void, signal?: AbortSignal): Promise<CallToolResult> {
    const entry = this.catalog.tools.get(name);
    if (!entry) {
      return toolError(pbError("PB_ERR_GATEWAY_TOOL_UNKNOWN", `No tool "${clip(name)}" on this gateway (its instance may be unhealthy or not exposed); list the tools again.`, { tool: clip(name) }));
    }
    const { route } = entry;
    const size = Buffer.byteLength(JSON.stringify(args));
    if (size > MAX_ARGS_BYTES) {
      return toolError(pbError("PB_ERR_CONTRACT_ARGS", `${route.instance}: the arguments of "${name}" are too large (${size} bytes; at most ${MAX_ARGS_BYTES}).`, { instance: route.instance, bytes: size }));
    }
    const invalid = this.checkArgs(entry, args);
    if (invalid) return toolError(invalid);
    const started = performance.now();
    try {
      const result = entry.kind === "mcp"
        ? await this.host.call(route.instance, "call", [route.target, args], { onProgress, signal })
        : await this.host.call(route.instance, route.target, toPositional(entry.kind, route.target, args), { onProgress, signal });
      this.stats.record(route.instance, performance.now() - started, true);
      // An MCP tool result passes through unchanged; anything else (another kind's return value,
      // or an mcp plugin that answers plain JSON) becomes its JSON as text.
      return entry.kind === "mcp" && isToolResult(result) ? result : { content: [{ type: "text", text: JSON.stringify(result ?? null) }] };
    } catch (err) {
      this.stats.record(route.instance, performance.now() - started, false);
      const wire = toWire(err);
      // The server's own error result passes through as it sent it.
      if (wire.code === "PB_ERR_TOOL_ERROR" && wire.data.result && typeof wire.data.result === "object") return wire.data.result as CallToolResult;
      return toolError(err);
    }
  }

  async close(): Promise<void> {
    this.subscriptions.close();
    await Promise.all([...this.servers].map((s) => s.close().catch(() => undefined)));
  }

  private notifyToolsChanged(): void {
    for (const s of this.servers) void s.sendToolListChanged().catch(() => undefined);
  }

  /** An mcp tool's arguments against its input schema before anything crosses (the server checks again). */
  private checkArgs(entry: CatalogTool, args: Record<string, unknown>): PatchbayError | null {
    if (entry.kind !== "mcp") return null;
    let validate = this.validators.get(entry.tool.name);
    if (validate === undefined) {
      try {
        validate = this.ajv.getValidator(entry.tool.inputSchema as never) as Validator;
      } catch {
        validate = null; // A schema Ajv cannot compile: the server decides.
      }
      this.validators.set(entry.tool.name, validate);
    }
    const verdict = validate?.(args);
    if (!verdict || verdict.valid) return null;
    return pbError("PB_ERR_CONTRACT_ARGS", `${entry.route.instance}: arguments of tool "${entry.route.target}" do not match its input schema: ${verdict.errorMessage ?? "invalid"}.`, { instance: entry.route.instance, tool: entry.route.target });
  }
}

/** A Patchbay failure as an MCP tool error: the code first, then what happened and what to do. */
export function toolError(err: unknown): CallToolResult {
  const wire = toWire(err);
  return {
    isError: true,
    content: [{ type: "text", text: `[${wire.code}] ${wire.message}\n${wire.hint}` }],
    _meta: { "patchbay/error": { code: wire.code, hint: wire.hint } },
  };
}

function isToolResult(v: unknown): v is CallToolResult {
  return !!v && typeof v === "object" && Array.isArray((v as { content?: unknown }).content);
}

const clip = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);
