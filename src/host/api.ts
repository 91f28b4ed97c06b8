/**
 * The embedder's API over a booted registry: typed accessors per section, calls through the
 * guard with deadlines, discovery (capabilities, list), agent broadcast and delivery receipts,
 * the boot report, and close(). Every error and value that leaves here is scrubbed.
 */
import { pbError, type PatchbayError, type WireError } from "../errors.js";
import type {
  AgentClient,
  BootReport,
  CallOptions,
  InstanceReport,
  LiveInstanceStatus,
  Remote,
  ListChange,
  ResourceUpdate,
} from "./types.js";
import type { Section } from "../contract/kinds.js";
import type {
  LocalModel,
  McpConnector,
  MemoryStore,
  OutgoingPayload,
  SkillStore,
  AdapterPlugin,
} from "../contract/types.js";
import { CallGuard, type HostMeta } from "../guard/call.js";
import { Listeners } from "./listeners.js";
import type { InstanceEntry, Registry } from "../registry/registry.js";
import { describeInstances, type InstanceCapabilities } from "../registry/capabilities.js";
import { broadcast, type BroadcastResult } from "../registry/broadcast.js";
import { ReceiptLog, type DeliveryRecord, type ReceiptFilter } from "../registry/receipts.js";
import { LiveHealth, isHealthy, type HealthChange } from "../registry/live-health.js";
import type { ResolvedConfig } from "../config/types.js";
import type { Scrubber } from "../secrets.js";
import type { Logger } from "../log.js";

export type {
  AgentClient,
  BootReport,
  CallOptions,
  InstanceReport,
  LiveInstanceStatus,
  ListChange,
  ResourceUpdate,
} from "./types.js";

export class Host {
  private closed = false;
  private readonly receiptLog = new ReceiptLog();
  private readonly guard: CallGuard;
  private readonly updateListeners = new Listeners<ResourceUpdate>();
  private readonly listListeners = new Listeners<ListChange>();

  constructor(
    private readonly registry: Registry,
    readonly scrubber: Scrubber,
    readonly logger: Logger,
    private readonly configFile: string | null,
    private readonly problems: WireError[],
    private readonly warnings: WireError[],
    /** The config the host booted from (the gateway section and intervals are read by `serve`). */
    readonly config: ResolvedConfig | null = null,
  ) {
    this.guard = new CallGuard(scrubber, this.receiptLog);
  }

  memory(name = "primary"): Remote<MemoryStore> {
    return this.proxy("memoryStores", name);
  }
  model(name = "default"): Remote<LocalModel> {
    return this.proxy("localModels", name);
  }
  mcp(name = "primary"): Remote<McpConnector> {
    return this.proxy("mcpConnectors", name);
  }
  agent(name = "primary"): AgentClient {
    return this.proxy<AgentClient>("agentConnectors", name);
  }
  skills(name = "primary"): Remote<SkillStore> {
    return this.proxy("skillStores", name);
  }
  adapter(name: string): Remote<AdapterPlugin> {
    return this.proxy("adapters", name);
  }

  /**
   * Calls `method` on instance "section/name" through the guard. The arguments are read when
   * the call leaves for the worker: at once for the first call of a turn, with the rest of the
   * turn's calls at its end otherwise (rpc/outbox.ts); do not change them before the turn ends.
   */
  call(id: string, method: string, args: unknown[] = [], opts: CallOptions = {}): Promise<unknown> {
    let entry: InstanceEntry;
    let pending: Promise<unknown>;
    try {
      if (this.closed) throw pbError("PB_ERR_HOST_CLOSED", "The host is closed.", {});
      entry = this.registry.get(id);
      pending = this.invoke(entry, method, args, opts);
    } catch (err) {
      return Promise.reject(this.scrubError(err));
    }
    // Counted so a hot reload lets calls in flight on the old worker finish before stopping it.
    // One `then` rather than nested awaits: this is every call's path.
    const counted = entry;
    counted.inflight = (counted.inflight ?? 0) + 1;
    const done = (): void => void (counted.inflight = (counted.inflight ?? 1) - 1);
    return pending.then(
      (value) => {
        done();
        return value;
      },
      (err: unknown) => {
        done();
        throw this.scrubError(err);
      },
    );
  }

  /** Per instance: kind, plugin@version, methods, modes, health state, MCP tools (after allowed_tools), agents. */
  async capabilities(): Promise<InstanceCapabilities[]> {
    return this.scrubber.scrubValue(
      await describeInstances(
        this.registry.all(),
        (id) => this.registry.aliasesOf(id),
        (e, m, a, o) => this.invoke(e, m, a, o),
      ),
    );
  }

  /** capabilities() of one section's instances. */
  async list(section: Section): Promise<InstanceCapabilities[]> {
    const entries = this.registry.all().filter((e) => e.section === section);
    return this.scrubber.scrubValue(
      await describeInstances(
        entries,
        (id) => this.registry.aliasesOf(id),
        (e, m, a, o) => this.invoke(e, m, a, o),
      ),
    );
  }

  /** Delivers to every agent connector whose list_agents() includes `agent_id`, all with one dispatch_id. */
  async broadcast(agent_id: string, payload: OutgoingPayload, opts: CallOptions = {}): Promise<BroadcastResult> {
    try {
      if (this.closed) throw pbError("PB_ERR_HOST_CLOSED", "The host is closed.", {});
      const invoke = (e: InstanceEntry, m: string, a: unknown[], o: CallOptions, meta?: HostMeta) =>
        this.invoke(e, m, a, o, meta);
      return this.scrubber.scrubValue(await broadcast(this.registry.all(), invoke, agent_id, payload, opts.timeoutMs));
    } catch (err) {
      throw this.scrubError(err);
    }
  }

  /**
   * MCP resource subscriptions: `fn` hears every update an instance reports for a URI (after
   * `host.call(id, "subscribe_resource", [uri])`), under the host's rate cap. Returns the function
   * that stops listening. The gateway uses this to fan updates out to its subscribed clients.
   */
  onResourceUpdated(fn: (update: ResourceUpdate) => void): () => void {
    return this.updateListeners.add(fn);
  }

  /** Internal (host.ts wires each worker here): a worker reported that `uri` changed. */
  resourceUpdated(instance: string, uri: string): void {
    if (this.closed || this.updateListeners.size === 0) return;
    this.updateListeners.emit({ instance, uri: this.scrubber.scrub(uri) });
  }

  /**
   * What an instance offers may have changed: its plugin said so (mcp-remote relays an MCP server's
   * list_changed, or its reconnect to a server that may have restarted), or its worker is restarting.
   * The gateway reads the instance's lists again and checks them against their pins before any client
   * hears of it. Returns the function that stops listening.
   */
  onListChanged(fn: (change: ListChange) => void): () => void {
    return this.listListeners.add(fn);
  }

  /** Internal (host/start.ts wires each worker here). */
  listChanged(instance: string, list: ListChange["list"]): void {
    if (!this.closed) this.listListeners.emit({ instance, list });
  }

  /** Every recorded delivery (oldest first) with the host's sent_at and the plugin's delivered_at. */
  receipts(filter: ReceiptFilter = {}): DeliveryRecord[] {
    return this.scrubber.scrubValue(this.receiptLog.list(filter));
  }

  report(): BootReport {
    const instances = this.registry.all().map((e) => this.instanceReport(e));
    return this.scrubber.scrubValue({
      configFile: this.configFile,
      ok: this.problems.length === 0 && instances.every((i) => !i.required || i.state === "ready"),
      instances,
      problems: this.problems,
      warnings: this.warnings,
    });
  }

  instanceIds(): string[] {
    return this.registry.all().map((e) => e.id);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.registry.all().map(async (e) => {
        await e.worker?.stop();
        if (e.state === "ready" || e.state === "degraded") e.state = "stopped";
      }),
    );
  }

  /**
   * serve: re-runs every instance's health_check on its interval; `onChange` hears an
   * instance turn unhealthy or recover. Returns the monitor (stop() it before close()).
   */
  startLiveHealth(onChange: (change: HealthChange) => void, onChecked?: (id: string) => void): LiveHealth {
    const live = new LiveHealth({
      entries: () => this.registry.all(),
      invoke: (e, m, a, o) => this.invoke(e, m, a, o),
      onChange,
      onChecked: onChecked && ((e) => onChecked(e.id)),
    });
    live.sync();
    return live;
  }

  /** serve: per instance, what `patchbay status` shows besides call statistics. */
  liveStatus(): LiveInstanceStatus[] {
    return this.scrubber.scrubValue(
      this.registry.all().map((e) => ({
        id: e.id,
        plugin: e.plugin,
        required: e.required,
        state: e.state,
        healthy: isHealthy(e),
        healthMs: e.healthMs,
        lastHealthAt: e.lastHealthAt ?? null,
        restarts: e.restarts ?? 0,
        error: e.error,
        clientRequests: e.clientRequests ?? null,
      })),
    );
  }

  /** Internal (hot reload): the registry, for swapping one instance's entry. */
  get registryForReload(): Registry {
    return this.registry;
  }

  /**
   * Internal: used by the health pass, reload and grants (plugin → host calls): the call guard's
   * door, without the host's closed check, in-flight count and scrubbing.
   */
  invoke(
    entry: InstanceEntry,
    method: string,
    args: unknown[],
    opts: CallOptions = {},
    hostMeta?: HostMeta,
  ): Promise<unknown> {
    return this.guard.invoke(entry, method, args, opts, hostMeta);
  }

  private proxy<T>(section: Section, name: string): Remote<T> {
    const id = `${section}/${name}`;
    return new Proxy({} as Remote<T>, {
      get: (_t, method) =>
        typeof method !== "string" || method === "then"
          ? undefined
          : (...args: unknown[]) => this.call(id, method, args),
    });
  }

  private instanceReport(e: InstanceEntry): InstanceReport {
    return {
      id: e.id,
      section: e.section,
      name: e.name,
      plugin: e.plugin,
      version: e.version,
      required: e.required,
      isolation: e.isolation,
      state: e.state,
      healthMs: e.healthMs,
      aliases: this.registry.aliasesOf(e.id),
      error: e.error,
    };
  }

  private scrubError(err: unknown): PatchbayError {
    return this.guard.scrubError(err);
  }
}
