/**
 * The MCP gateway's routing: one SDK `Server` per connected client (stdio has one, Streamable HTTP
 * one per session, and one per request that asks for progress), its handlers answering from one
 * catalog. The catalog's upkeep and list_changed are catalog-keeper.ts; what is offered while the
 * host boots, and what this start leaves the next, boot-view.ts. tools/call is tool-calls.ts;
 * resources and prompts pass through (resources.ts, subscriptions.ts).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { INSTRUCTIONS } from "./head-start-answers.js";
import type { PatchbayError } from "../errors.js";
import type { Host } from "../host/api.js";
import type { ProgressUpdate } from "../rpc/client.js";
import type { Logger } from "../log.js";
import { packageVersion } from "../paths.js";
import { BootView } from "./boot-view.js";
import { CatalogKeeper } from "./catalog-keeper.js";
import { describeCapabilities } from "./offers.js";
import { ALL, PassthroughRoutes } from "./resources.js";
import { registerPassthrough } from "./passthrough-handlers.js";
import { auditedRun } from "./audit/requests.js";
import { Subscriptions, type SubscriptionHooks } from "./subscriptions.js";
import type { ToolCallExtra } from "./lane-types.js";
import { ToolCalls } from "./tool-calls.js";
import type { PinBook } from "./pins/pin-book.js";
import { forbidden, OPERATOR, seesAny, seesWhole, type Caller } from "./clients/caller.js";
import type { CallScope } from "./clients/gate.js";
import { protocolError } from "./rpc-errors.js";

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

export class Gateway {
  /** tools/call for every client (tool-calls.ts); its stats feed the status document. */
  readonly calls: ToolCalls;
  /** Definitions held to connectors.lock.json (pins/pin-book.ts). */
  readonly pins: PinBook;
  private readonly servers = new Set<Server>();
  /** Who each connected server answers for (clients/caller.ts); the stdio client is the operator. */
  private readonly callers = new WeakMap<Server, Caller>();
  private readonly ajv = new AjvJsonSchemaValidator();
  private readonly boot: BootView;
  private readonly keeper: CatalogKeeper;
  private readonly subscriptions: Subscriptions;
  private readonly routes: PassthroughRoutes;

  constructor(
    private readonly host: Host,
    opts: GatewayOptions,
  ) {
    this.boot = new BootView(host, opts.expose, { stateDir: opts.stateDir ?? null, holdMs: opts.holdMs });
    this.subscriptions = new Subscriptions(host, (level, message, to) => {
      for (const s of to)
        void s.sendLoggingMessage({ level, logger: "patchbay", data: message }).catch(() => undefined);
    });
    this.keeper = new CatalogKeeper(host, {
      expose: opts.expose,
      logger: opts.logger,
      say: opts.say ?? ((line: string) => opts.logger.info(line)),
      boot: this.boot,
      servers: this.servers,
      subscriptions: this.subscriptions,
      // A changed list may redefine a tool: its input schema is compiled again on the next call.
      toolsChanged: () => this.calls.forgetSchemas(),
    });
    this.pins = this.keeper.pins;
    this.routes = new PassthroughRoutes(host, () => this.keeper.catalog.passthrough, this.pins);
    this.calls = new ToolCalls({
      host,
      tools: () => this.keeper.catalog.tools,
      withheld: () => this.keeper.catalog.withheld,
      fresh: (instance, signal) => this.keeper.fresh(instance, signal),
      live: () => this.boot.opened,
      booted: (signal) => this.boot.booted(signal),
      ajv: this.ajv,
    });
  }

  /** Builds the first catalog; returns the gateway section's errors (serve refuses to start on them). */
  async start(): Promise<PatchbayError[]> {
    this.boot.goLive();
    await this.keeper.refresh();
    this.boot.open();
    this.keeper.opened();
    return this.keeper.catalog.errors;
  }

  /**
   * During the boot, as each instance's boot ends: its tools replace its cached ones (and are
   * announced with list_changed), and the cache learns them even if the boot never finishes.
   */
  instanceBooted(): void {
    if (!this.boot.live) void this.keeper.refresh();
  }

  /** True until start(): the boot has not settled. */
  get booting(): boolean {
    return !this.boot.opened;
  }

  /** After a hot reload: the gateway section now in force. */
  setExpose(expose: GatewayOptions["expose"], pinning?: Parameters<PinBook["reconfigure"]>[0]): void {
    this.keeper.setExpose(expose, pinning);
  }

  toolNames(): string[] {
    return [...this.keeper.catalog.tools.keys()];
  }

  /** Rebuilds the catalog and tells clients what changed (catalog-keeper.ts); concurrent calls coalesce. */
  refresh(): Promise<void> {
    return this.keeper.refresh();
  }

  /** The operator accepted pins (patchbay pins accept): withheld definitions may be served now. */
  pinsChanged(): Promise<void> {
    return this.keeper.pinsChanged();
  }

  /** Tells clients about an instance's health in their log stream (at their chosen level). */
  announce(level: "info" | "warning" | "error", message: string, instance?: string): void {
    for (const s of this.servers) {
      // A client hears only of instances it sees: another instance's name is not its business.
      const caller = this.callers.get(s) ?? OPERATOR;
      if (instance !== undefined && !seesAny(caller, instance)) continue;
      void s.sendLoggingMessage({ level, logger: "patchbay", data: message }).catch(() => undefined);
    }
  }

  /** Who hears of each client's subscribe and unsubscribe (shared sessions, http-shared.ts). */
  set subscriptionHooks(hooks: SubscriptionHooks | null) {
    this.subscriptions.hooks = hooks;
  }

  /**
   * Subscribes `server`'s client to `uri` on `instance` with no request of its own: a replica
   * carrying on a subscription that one which is gone held. The client's policy was checked when
   * it subscribed.
   */
  holdSubscription(server: Server, instance: string, uri: string): Promise<void> {
    return this.subscriptions.subscribe(server, instance, uri);
  }

  /** Lets go of `server`'s subscriptions to `uri` (its client unsubscribed through another replica). */
  releaseSubscription(server: Server, uri: string): Promise<void> {
    return this.subscriptions.unsubscribe(server, uri);
  }

  /** The instances this gateway's host runs (what it can hold a subscription on). */
  instanceIds(): string[] {
    return this.host.instanceIds();
  }

  /** Ends the sessions of callers no longer configured (a revoked client): their next request is refused anyway. */
  dropCallers(stillThere: (id: string) => boolean): number {
    let dropped = 0;
    for (const s of this.servers) {
      const caller = this.callers.get(s);
      if (!caller || caller === OPERATOR || stillThere(caller.id)) continue;
      dropped++;
      void s.close().catch(() => undefined);
    }
    return dropped;
  }

  /**
   * A new SDK server for one client connection. `stateless`: for one HTTP request of a client
   * with no session; nothing can reach that client later, so list_changed and subscriptions are
   * not offered.
   */
  createServer(opts: { stateless?: boolean; caller?: Caller; session?: string | null } = {}): Server {
    const live = !opts.stateless;
    const caller = opts.caller ?? OPERATOR;
    const policy = caller.policy;
    const offers = this.boot.offers(this.keeper.catalog, this.keeper.expose);
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
      await this.boot.listWait();
      const served = [...this.boot.served(this.keeper.catalog).values()];
      // A client's list is exactly what its calls may reach: the same check as tools/call's.
      const mine = policy ? served.filter((t) => policy.seesTool(t.route.instance, t.route.target)) : served;
      return { tools: mine.map((t) => t.tool) };
    });
    server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
      this.callTool(req.params, extra, { caller, session: opts.session ?? extra.sessionId ?? null }),
    );
    const view = {
      sees: policy ? (instance: string) => seesWhole(caller, instance) : undefined,
      refuse: (what: string) => {
        this.calls.gate.usage.refused(caller.id, "policy", what);
        return forbidden(caller, what);
      },
      // Reads and gets count against the same quota as tool calls.
      admit: policy ? () => this.calls.gate.admit(caller) : undefined,
    };
    if (offers.resources || offers.prompts) {
      // Lists wait for the boot only as long as tools/list does (a client may wait for all three);
      // reads, gets and subscriptions wait for it.
      const ownerOf = registerPassthrough(
        server,
        this.routes,
        offers,
        () => this.boot.booted(),
        () => this.boot.listWait(),
        {
          sees: view.sees ?? ALL,
          refuse: view.refuse,
          admit: view.admit,
          audited: auditedRun(() => this.calls.gate.audit, caller, opts.session ?? null),
        },
      );
      if (offers.resources && offers.subscribe)
        this.subscriptions.register(
          server,
          () => this.keeper.catalog.passthrough,
          ownerOf,
          () => this.boot.booted(),
          (instance, uri) => {
            if (view.sees && !view.sees(instance)) throw protocolError(view.refuse(`resource ${uri.slice(0, 200)}`));
          },
        );
    }
    this.servers.add(server);
    this.callers.set(server, caller);
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
  callTool(params: CallToolRequest["params"], extra: ToolCallExtra, scope?: CallScope): Promise<CallToolResult> {
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
    return this.calls.call(params.name, params.arguments ?? {}, onProgress, extra.signal, params._meta, scope);
  }

  /** Resolves when the boot has settled (or `signal` aborts first). */
  booted(signal?: AbortSignal): Promise<void> {
    return this.boot.booted(signal);
  }

  async close(): Promise<void> {
    this.boot.close();
    this.keeper.close();
    this.subscriptions.close();
    await Promise.all([...this.servers].map((s) => s.close().catch(() => undefined)));
  }
}
