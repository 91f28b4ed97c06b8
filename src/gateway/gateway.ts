/**
 * The MCP gateway: one SDK `Server` per connected client (stdio has one, Streamable HTTP one per
 * session, and one per request that asks for progress), all answering from one catalog, which it
 * rebuilds as instances change health and announces with list_changed; during the boot, from the
 * last boot's catalog (catalog-cache.ts). tools/call is tool-calls.ts; resources and prompts
 * pass through (resources.ts, subscriptions.ts); what the next start's head start may answer is
 * head-start-answers.ts. It stays one class over 300 lines because its parts share one state (the
 * catalog, the boot's view of it, the connected servers) that every request and refresh reads.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { stampKey, type FrontAnswers } from "./stdio-front.js";
import { headStartAnswers, INSTRUCTIONS } from "./head-start-answers.js";
import type { PatchbayError } from "../errors.js";
import type { Host } from "../host/api.js";
import type { ProgressUpdate } from "../rpc/client.js";
import type { Logger } from "../log.js";
import { packageVersion } from "../paths.js";
import { buildCatalog, catalogKey, type Catalog, type CatalogTool } from "./catalog.js";
import { exposedFingerprints, loadProvisional, saveCatalog } from "./catalog-cache.js";
import { describeCapabilities, offersOf } from "./offers.js";
import { PassthroughRoutes, registerPassthrough } from "./resources.js";
import { Subscriptions } from "./subscriptions.js";
import type { ToolCallExtra } from "./lane-types.js";
import { ToolCalls } from "./tool-calls.js";
import { ListChangeWatch } from "./list-changes.js";
import { PinBook } from "./pins/pin-book.js";
import { lockPathFor } from "./pins/lock-file.js";
import type { ListChange } from "../host/types.js";

export interface GatewayOptions {
  expose: Readonly<Record<string, boolean | readonly string[]>>;
  logger: Logger;
  /** Where the tool list of the last boot is kept (catalog-cache.ts); null: no cache. */
  stateDir?: string | null;
  /** How long the first tools/list waits for the boot when the cache cannot answer it. @default 20000 */
  holdMs?: number;
  /** Where a message for the operator goes (serve: stderr), e.g. that the lock file was written. */
  say?: (line: string) => void;
}

/**
 * A client that lists once (the Inspector CLI, a script) should get every instance's tools, so the
 * first tools/list waits for the whole boot when the cache cannot answer it; the bound only keeps
 * the answer inside a client's request timeout (the SDK's is 60 s). A client that does not wait
 * (Claude Code in -p mode) is not slowed by the hold: it hears the rest through list_changed.
 */
const DEFAULT_HOLD_MS = 20_000;

export class Gateway {
  /** tools/call for every client (tool-calls.ts); its stats feed the status document. */
  readonly calls: ToolCalls;
  private catalog: Catalog = {
    tools: new Map(),
    skipped: [],
    errors: [],
    passthrough: { resources: [], templates: [], subscribable: [], prompts: [] },
    exposed: new Set(),
    withheld: new Map(),
  };
  private key = "";
  private readonly servers = new Set<Server>();
  private refreshing: Promise<void> | null = null;
  private again = false;
  private readonly ajv = new AjvJsonSchemaValidator();

  private expose: GatewayOptions["expose"];
  private readonly subscriptions: Subscriptions;
  private readonly routes: PassthroughRoutes;
  /** From start() on: the boot has ended, and refreshes save the head start's answers and sync subscriptions. */
  private live = false;
  /**
   * Once start() has built the first catalog of the booted instances: what requests are answered
   * from. Until then tools/list answers from the cache or waits, and calls wait. Not `live`: the
   * gateway may be created after every instance is up (serve loads it while they start), so until
   * that first build its catalog can be empty, and a request answered from it would find no tools.
   */
  private opened = false;
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
  /** Definitions held to connectors.lock.json (pins/pin-book.ts). */
  readonly pins: PinBook;
  private readonly listChanges: ListChangeWatch;

  constructor(
    private readonly host: Host,
    opts: GatewayOptions,
  ) {
    this.expose = opts.expose;
    this.stateDir = opts.stateDir ?? null;
    this.holdMs = opts.holdMs ?? DEFAULT_HOLD_MS;
    const say = opts.say ?? ((line: string) => opts.logger.info(line));
    this.pins = new PinBook({
      file: lockPathFor(host.config?.file ?? null),
      pinning: host.config?.gateway.pinning ?? { default: "enforce", instances: {} },
      warn: (message, data) => opts.logger.warn(data, message),
      say,
    });
    this.listChanges = new ListChangeWatch(host, (lists) => this.listsChanged(lists));
    this.routes = new PassthroughRoutes(host, () => this.catalog.passthrough, this.pins);
    this.calls = new ToolCalls({
      host,
      tools: () => this.catalog.tools,
      withheld: () => this.catalog.withheld,
      fresh: (instance, signal) => this.listChanges.fresh(instance, signal),
      live: () => this.opened,
      booted: (signal) => this.booted(signal),
      ajv: this.ajv,
    });
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
    this.opened = true;
    this.settle();
    // That refresh measured what clients see by the boot's view; from now on it is the live catalog.
    this.announceIfChanged(catalogKey({ ...this.catalog, tools: this.served() }));
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
    if (this.opened) return this.catalog.tools;
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
    return !this.opened;
  }

  /** After a hot reload: the gateway section now in force. */
  setExpose(expose: GatewayOptions["expose"], pinning?: Parameters<PinBook["reconfigure"]>[0]): void {
    this.expose = expose;
    if (pinning) this.pins.reconfigure(pinning);
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
        const next = await buildCatalog(this.host, this.expose, this.pins);
        this.catalog = next;
        const key = catalogKey({ ...next, tools: this.served() });
        if (this.stateDir && (key !== this.key || this.frontStale)) {
          saveCatalog(this.stateDir, this.fingerprints, next, this.live ? this.frontAnswers() : undefined);
          if (this.live) this.frontStale = false;
        }
        // A restarted or withdrawn instance's subscriptions are renewed or ended.
        if (this.live) this.subscriptions.sync(next.exposed);
        this.announceIfChanged(key);
      } while (this.again);
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** Tells clients when the tools they are offered changed (`key`: what they are offered now). */
  private announceIfChanged(key: string): void {
    if (key === this.key) return;
    this.key = key;
    this.calls.forgetSchemas();
    this.notifyToolsChanged();
  }

  /**
   * Instances announced changed lists: read them again (and hold them to their pins) before any client
   * hears, then tell clients what changed: tools by list_changed when what they see differs, prompts and
   * resources (read live per request) by their list_changed.
   */
  private async listsChanged(lists: Map<string, Set<ListChange["list"]>>): Promise<void> {
    await this.refresh();
    const all = [...lists.values()];
    const said = (l: ListChange["list"]) => all.some((s) => s.has(l) || s.has("all"));
    for (const s of this.servers) {
      if (said("prompts"))
        void Promise.resolve()
          .then(() => s.sendPromptListChanged())
          .catch(() => undefined);
      if (said("resources"))
        void Promise.resolve()
          .then(() => s.sendResourceListChanged())
          .catch(() => undefined);
    }
  }

  /** The operator accepted pins (patchbay pins accept): withheld definitions may be served now. */
  async pinsChanged(): Promise<void> {
    await this.refresh();
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
    const offers = offersOf(this.host, this.expose, this.opened ? this.catalog.passthrough : null);
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
      if (!this.opened && !this.provisional.complete) await Promise.race([this.settled, delay(this.holdMs)]);
      return { tools: [...this.served().values()].map((t) => t.tool) };
    });
    server.setRequestHandler(CallToolRequestSchema, (req, extra) => this.callTool(req.params, extra));
    if (offers.resources || offers.prompts) {
      // Lists wait for the boot only as long as tools/list does (a client may wait for all three);
      // reads, gets and subscriptions wait for it.
      const listWait = () =>
        this.opened || this.provisional.complete ? Promise.resolve() : Promise.race([this.settled, delay(this.holdMs)]);
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
   * tools/call, from an SDK server's handler or from the stdio lane (stdio-lane.ts), which hands
   * it the same params after the same schema checks.
   */
  callTool(params: CallToolRequest["params"], extra: ToolCallExtra): Promise<CallToolResult> {
    // A client that asked for progress (a progressToken) hears the connector's, as notifications/progress.
    const token = params._meta?.progressToken;
    const onProgress =
      token === undefined
        ? undefined
        : (u: ProgressUpdate) => {
            void extra
              .sendNotification({ method: "notifications/progress", params: { progressToken: token, ...u } })
              .catch(() => undefined);
          };
    // A client that cancels (notifications/cancelled) or goes away withdraws the call: the plugin is told to stop.
    return this.calls.call(params.name, params.arguments ?? {}, onProgress, extra.signal, params._meta);
  }

  /** What gateway/stdio-front.ts may answer before the next start's CLI has loaded (null: no config file). */
  private frontAnswers(): FrontAnswers | undefined {
    const file = this.host.config?.file;
    if (!file || !this.stampKey) return undefined;
    const offers = offersOf(this.host, this.expose, this.opened ? this.catalog.passthrough : null);
    return headStartAnswers(
      file,
      this.stampKey,
      offers,
      [...this.served().values()].map((t) => t.tool),
    );
  }

  /** Resolves when the boot has settled (or `signal` aborts first). */
  booted(signal?: AbortSignal): Promise<void> {
    if (this.opened) return Promise.resolve();
    if (!signal) return this.settled;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
      void this.settled.then(resolve);
    });
  }

  async close(): Promise<void> {
    this.settle();
    this.listChanges.close();
    this.subscriptions.close();
    await Promise.all([...this.servers].map((s) => s.close().catch(() => undefined)));
  }

  private notifyToolsChanged(): void {
    for (const s of this.servers) void s.sendToolListChanged().catch(() => undefined);
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
