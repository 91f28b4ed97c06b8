/**
 * The MCP gateway: one SDK `Server` per connected client (stdio has one, Streamable HTTP one per
 * session), all answering from one catalog. Every call goes through host.call, so the guard,
 * allowed_tools, deadlines, identity merge and secret scrubbing apply exactly as for embedders.
 * A tool result passes through unchanged; a Patchbay failure becomes a tool error whose text
 * starts with its PB_ERR_* code, so the client's model can read what happened and what to do.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { readFileSync } from "node:fs";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { frontStamp, stampKey, type FrontAnswers } from "./stdio-front.js";
import { pbError, toWire, type PatchbayError } from "../errors.js";
import type { Host } from "../host/api.js";
import type { ProgressUpdate } from "../rpc/client.js";
import type { Logger } from "../log.js";
import { packageVersion } from "../paths.js";
import { buildCatalog, catalogKey, type Catalog, type CatalogTool } from "./catalog.js";
import { exposedFingerprints, loadProvisional, saveCatalog } from "./catalog-cache.js";
import { toPositional } from "./exposure.js";
import { describeCapabilities, offersOf } from "./offers.js";
import { PassthroughRoutes, registerPassthrough } from "./resources.js";
import { StatsBook } from "./stats.js";
import { Subscriptions } from "./subscriptions.js";
import { derivedRecordId, IdempotencyBook, idempotencyKeyOf } from "./idempotency.js";

export interface GatewayOptions {
  expose: Readonly<Record<string, boolean | readonly string[]>>;
  logger: Logger;
  /** Where the tool list of the last boot is kept (catalog-cache.ts); null: no cache. */
  stateDir?: string | null;
  /** How long the first tools/list waits for the boot when the cache cannot answer it. @default 20000 */
  holdMs?: number;
}

/**
 * A client that lists once (the Inspector CLI, a script) should get every instance's tools, so the
 * first tools/list waits for the whole boot when the cache cannot answer it; the bound only keeps
 * the answer inside a client's request timeout (the SDK's is 60 s). A client that does not wait
 * (Claude Code in -p mode) is not slowed by the hold: it hears the rest through list_changed.
 */
const DEFAULT_HOLD_MS = 20_000;

/** A tool call's arguments may serialize to at most this many bytes (the HTTP body limit is the same). */
export const MAX_ARGS_BYTES = 4 * 1024 * 1024;

type Validator = ((input: unknown) => { valid: boolean; errorMessage?: string }) | null;

export class Gateway {
  readonly stats = new StatsBook();
  /** Keyed calls this gateway answered, so a retry with the same key is not run twice. */
  readonly idempotency = new IdempotencyBook();
  private catalog: Catalog = {
    tools: new Map(),
    skipped: [],
    errors: [],
    passthrough: { resources: [], templates: [], subscribable: [], prompts: [] },
    exposed: new Set(),
  };
  private key = "";
  private readonly servers = new Set<Server>();
  private refreshing: Promise<void> | null = null;
  private again = false;
  private readonly validators = new Map<string, Validator>();
  private readonly ajv = new AjvJsonSchemaValidator();

  private expose: GatewayOptions["expose"];
  private readonly subscriptions: Subscriptions;
  private readonly routes: PassthroughRoutes;
  /** Until start(): the instances are still booting; tools/list answers from the cache, calls wait. */
  private live = false;
  private settle!: () => void;
  private readonly settled = new Promise<void>((resolve) => (this.settle = resolve));
  private provisional: { tools: Map<string, CatalogTool>; complete: boolean } = { tools: new Map(), complete: false };
  private fingerprints = new Map<string, string>();
  private readonly stateDir: string | null;
  /** Keys catalog.json's stamps (null without a state folder, or when it cannot be written). */
  private readonly stampKey: Buffer | null;
  private readonly holdMs: number;
  /** The head start's answers in the cache are from before this boot. */
  private frontStale = true;

  constructor(
    private readonly host: Host,
    opts: GatewayOptions,
  ) {
    this.expose = opts.expose;
    this.stateDir = opts.stateDir ?? null;
    this.holdMs = opts.holdMs ?? DEFAULT_HOLD_MS;
    this.routes = new PassthroughRoutes(host, () => this.catalog.passthrough);
    this.stampKey = this.stateDir ? stampKey(this.stateDir, true) : null;
    if (this.stateDir && this.stampKey) {
      this.fingerprints = exposedFingerprints(host, this.expose, this.stampKey);
      this.provisional = loadProvisional(this.stateDir, this.fingerprints);
    }
    // What clients are first told is the cached list: the live one is announced only if it differs.
    this.key = catalogKey({ ...this.catalog, tools: this.provisional.tools });
    this.subscriptions = new Subscriptions(host, (level, message, to) => {
      for (const s of to)
        void s.sendLoggingMessage({ level, logger: "patchbay", data: message }).catch(() => undefined);
    });
  }

  /** Builds the first catalog; returns the gateway section's errors (serve refuses to start on them). */
  async start(): Promise<PatchbayError[]> {
    this.live = true;
    await this.refresh();
    this.settle();
    // Resources and prompts listed during the boot may have missed connectors that were not ready.
    // (The SDK refuses, without sending, a notification for a capability a server did not offer.)
    for (const s of this.servers) {
      void Promise.resolve()
        .then(() => s.sendResourceListChanged())
        .catch(() => undefined);
      void Promise.resolve()
        .then(() => s.sendPromptListChanged())
        .catch(() => undefined);
    }
    return this.catalog.errors;
  }

  /**
   * During the boot, as each instance's boot ends: its tools replace its cached ones (and are
   * announced with list_changed), and the cache learns them even if the boot never finishes.
   */
  instanceBooted(): void {
    if (!this.live) void this.refresh();
  }

  /**
   * The tools clients are offered. Booted: the live catalog. Booting: the instances that are
   * ready with their live tools, the others with their cached ones.
   */
  private served(): Map<string, CatalogTool> {
    if (this.live) return this.catalog.tools;
    const ready = new Set(
      [...this.catalog.exposed].filter((id) => !this.catalog.skipped.some((s) => s.instance === id)),
    );
    const out = new Map<string, CatalogTool>();
    for (const [name, t] of this.provisional.tools) if (!ready.has(t.route.instance)) out.set(name, t);
    for (const [name, t] of this.catalog.tools) out.set(name, t);
    return out;
  }

  /** True until start(): the boot has not settled. */
  get booting(): boolean {
    return !this.live;
  }

  /** After a hot reload: the gateway section now in force. */
  setExpose(expose: GatewayOptions["expose"]): void {
    this.expose = expose;
    if (this.stampKey) this.fingerprints = exposedFingerprints(this.host, expose, this.stampKey);
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
        this.catalog = next;
        const key = catalogKey({ ...next, tools: this.served() });
        if (this.stateDir && (key !== this.key || this.frontStale)) {
          saveCatalog(this.stateDir, this.fingerprints, next, this.live ? this.frontAnswers() : undefined);
          if (this.live) this.frontStale = false;
        }
        // A restarted or withdrawn instance's subscriptions are renewed or ended.
        if (this.live) this.subscriptions.sync(next.exposed);
        if (key !== this.key) {
          this.key = key;
          this.validators.clear();
          this.notifyToolsChanged();
        }
      } while (this.again);
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** Tells clients about an instance's health in their log stream (at their chosen level). */
  announce(level: "info" | "warning" | "error", message: string): void {
    for (const s of this.servers)
      void s.sendLoggingMessage({ level, logger: "patchbay", data: message }).catch(() => undefined);
  }

  /**
   * A new SDK server for one client connection. `stateless`: for one HTTP request of a client
   * with no session; nothing can reach that client later, so list_changed and subscriptions are
   * not offered.
   */
  createServer(opts: { stateless?: boolean } = {}): Server {
    const live = !opts.stateless;
    const offers = offersOf(this.host, this.expose, this.live ? this.catalog.passthrough : null);
    if (!live) offers.subscribe = false;
    const server = new Server(
      { name: "patchbay", version: packageVersion() },
      {
        ...describeCapabilities(offers, { notify: live }),
        instructions: INSTRUCTIONS,
        // One validator for all: the SDK otherwise builds (and compiles the meta-schemas of) an Ajv
        // per server, and HTTP makes a server per request.
        jsonSchemaValidator: this.ajv,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      // While booting: the cached list at once when it covers every exposed instance; otherwise
      // wait for the boot (bounded), then offer what is known and announce the rest with list_changed.
      if (!this.live && !this.provisional.complete) await Promise.race([this.settled, delay(this.holdMs)]);
      return { tools: [...this.served().values()].map((t) => t.tool) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      // A client that asked for progress (a progressToken) hears the connector's, as notifications/progress.
      const token = req.params._meta?.progressToken;
      const onProgress =
        token === undefined
          ? undefined
          : (u: ProgressUpdate) => {
              void extra
                .sendNotification({ method: "notifications/progress", params: { progressToken: token, ...u } })
                .catch(() => undefined);
            };
      // A client that cancels (notifications/cancelled) or goes away withdraws the call: the plugin is told to stop.
      return this.callTool(req.params.name, req.params.arguments ?? {}, onProgress, extra.signal, req.params._meta);
    });
    if (offers.resources || offers.prompts) {
      // Lists wait for the boot only as long as tools/list does (a client may wait for all three);
      // reads, gets and subscriptions wait for it.
      const listWait = () =>
        this.live || this.provisional.complete ? Promise.resolve() : Promise.race([this.settled, delay(this.holdMs)]);
      const ownerOf = registerPassthrough(server, this.routes, offers, () => this.booted(), listWait);
      if (offers.resources && offers.subscribe)
        this.subscriptions.register(
          server,
          () => this.catalog.passthrough,
          ownerOf,
          () => this.booted(),
        );
    }
    this.servers.add(server);
    server.onclose = () => {
      this.servers.delete(server);
      // A client that leaves unsubscribes what it held (other clients' subscriptions stay).
      this.subscriptions.drop(server);
    };
    return server;
  }

  /**
   * A tool call; `meta` may carry an idempotency key (idempotency.ts): a memory write without an
   * id gets the key's id, and any call with a key is run at most once here while remembered.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
    meta?: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const key = idempotencyKeyOf(meta);
    if (key === null) return this.runTool(name, args, onProgress, signal);
    if (typeof key !== "string")
      return toolError(
        pbError("PB_ERR_CONTRACT_ARGS", `tools/call "${clip(name)}": ${key.invalid}.`, { tool: clip(name) }),
      );
    if (!this.live && !this.catalog.tools.has(name)) await this.booted(signal);
    const entry = this.catalog.tools.get(name);
    if (entry && entry.kind === "memory-store" && entry.route.target === "write" && args.id === undefined)
      args = { ...args, id: derivedRecordId(entry.route.instance, key) };
    const step = this.idempotency.begin(name, key, args);
    if (step.kind === "again") return step.answer;
    if (step.kind === "conflict") {
      return toolError(
        pbError(
          "PB_ERR_GATEWAY_IDEMPOTENCY_CONFLICT",
          `tools/call "${clip(name)}": the idempotency key was used before with other arguments; nothing was run.`,
          { tool: clip(name) },
        ),
      );
    }
    return step.settle(this.runTool(name, args, onProgress, signal));
  }

  private async runTool(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (update: ProgressUpdate) => void,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    // A call made from the cached list waits for the boot (unless its instance is ready), then takes the live route.
    if (!this.live && !this.catalog.tools.has(name)) await this.booted(signal);
    if (signal?.aborted)
      return toolError(
        pbError(
          "PB_ERR_CALL_CANCELLED",
          `The client withdrew its call of "${clip(name)}" before the instances had booted.`,
          { tool: clip(name) },
        ),
      );
    const entry = this.catalog.tools.get(name);
    if (!entry) {
      return toolError(
        pbError(
          "PB_ERR_GATEWAY_TOOL_UNKNOWN",
          `No tool "${clip(name)}" on this gateway (its instance may be unhealthy or not exposed); list the tools again.`,
          { tool: clip(name) },
        ),
      );
    }
    const { route } = entry;
    const size = Buffer.byteLength(JSON.stringify(args));
    if (size > MAX_ARGS_BYTES) {
      return toolError(
        pbError(
          "PB_ERR_CONTRACT_ARGS",
          `${route.instance}: the arguments of "${name}" are too large (${size} bytes; at most ${MAX_ARGS_BYTES}).`,
          { instance: route.instance, bytes: size },
        ),
      );
    }
    const invalid = this.checkArgs(entry, args);
    if (invalid) return toolError(invalid);
    const started = performance.now();
    try {
      const result =
        entry.kind === "mcp"
          ? await this.host.call(route.instance, "call", [route.target, args], { onProgress, signal })
          : await this.host.call(route.instance, route.target, toPositional(entry.kind, route.target, args), {
              onProgress,
              signal,
            });
      this.stats.record(route.instance, performance.now() - started, true);
      // An MCP tool result passes through unchanged; anything else (another kind's return value,
      // or an mcp plugin that answers plain JSON) becomes its JSON as text.
      return entry.kind === "mcp" && isToolResult(result)
        ? result
        : { content: [{ type: "text", text: JSON.stringify(result ?? null) }] };
    } catch (err) {
      this.stats.record(route.instance, performance.now() - started, false);
      const wire = toWire(err);
      // The server's own error result passes through as it sent it.
      if (wire.code === "PB_ERR_TOOL_ERROR" && wire.data.result && typeof wire.data.result === "object")
        return wire.data.result as CallToolResult;
      return toolError(err);
    }
  }

  /** What gateway/stdio-front.ts may answer before the next start's CLI has loaded (null: no config file). */
  private frontAnswers(): FrontAnswers | undefined {
    const file = this.host.config?.file;
    if (!file || !this.stampKey) return undefined;
    try {
      const offers = offersOf(this.host, this.expose, this.live ? this.catalog.passthrough : null);
      const probe = describeCapabilities(offers);
      return {
        stamp: frontStamp(file, readFileSync(file, "utf8"), process.env, this.stampKey),
        protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
        initialize: {
          capabilities: probe.capabilities,
          serverInfo: { name: "patchbay", version: packageVersion() },
          instructions: INSTRUCTIONS,
        },
        tools: [...this.served().values()].map((t) => t.tool),
      };
    } catch {
      return undefined;
    }
  }

  /** Resolves when the boot has settled (or `signal` aborts first). */
  booted(signal?: AbortSignal): Promise<void> {
    if (this.live) return Promise.resolve();
    if (!signal) return this.settled;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
      void this.settled.then(resolve);
    });
  }

  async close(): Promise<void> {
    this.settle();
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
    return pbError(
      "PB_ERR_CONTRACT_ARGS",
      `${entry.route.instance}: arguments of tool "${entry.route.target}" do not match its input schema: ${verdict.errorMessage ?? "invalid"}.`,
      { instance: entry.route.instance, tool: entry.route.target },
    );
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

const INSTRUCTIONS =
  "Patchbay gateway: each tool name says which instance it reaches (<instance>__<tool> for MCP connectors, memory__/skills__/agents__<instance>__<method> for the others).";

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const clip = (s: string) => (s.length > 200 ? `${s.slice(0, 200)}…` : s);
