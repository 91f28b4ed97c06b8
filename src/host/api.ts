/**
 * The embedder's API over a booted registry: typed accessors per section, calls through the
 * guard with deadlines, discovery (capabilities, list), agent broadcast and delivery receipts,
 * the boot report, and close(). Every error and value that leaves here is scrubbed.
 */
import { pbError, PatchbayError, toWire, type WireError } from "../errors.js";
import type { AgentClient, BootReport, CallOptions, InstanceReport, LiveInstanceStatus, Remote, ResourceUpdate } from "./types.js";
import type { Section } from "../contract/kinds.js";
import type { LocalModel, McpConnector, MemoryStore, OutgoingPayload, SkillStore, AdapterPlugin } from "../contract/types.js";
import { checkCall, checkResult, contractTimeout, type HostMeta } from "../guard/guard.js";
import { knowsTools, toolsUnknown } from "../guard/mcp-checks.js";
import type { ProgressUpdate } from "../rpc/client.js";
import type { InstanceEntry, Registry } from "../registry/registry.js";
import { describeInstances, type InstanceCapabilities } from "../registry/capabilities.js";
import { broadcast, type BroadcastResult } from "../registry/broadcast.js";
import { ReceiptLog, type DeliveryRecord, type ReceiptFilter } from "../registry/receipts.js";
import { LiveHealth, isHealthy, type HealthChange } from "../registry/live-health.js";
import type { ResolvedConfig } from "../config/types.js";
import type { Scrubber } from "../secrets.js";
import type { Logger } from "../log.js";
import { watchSubstrate } from "../registry/substrate.js";

/** The longest the host spends listing an instance's tools before its first call. */
const LEARN_TOOLS_MS = 5_000;

export type { AgentClient, BootReport, CallOptions, InstanceReport, LiveInstanceStatus, ResourceUpdate } from "./types.js";

export class Host {
  private closed = false;
  private readonly receiptLog = new ReceiptLog();
  private readonly updateListeners = new Set<(update: ResourceUpdate) => void>();

  constructor(
    private readonly registry: Registry,
    readonly scrubber: Scrubber,
    readonly logger: Logger,
    private readonly configFile: string | null,
    private readonly problems: WireError[],
    private readonly warnings: WireError[],
    /** The config the host booted from (the gateway section and intervals are read by `serve`). */
    readonly config: ResolvedConfig | null = null,
  ) {}

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
    return this.scrubber.scrubValue(await describeInstances(this.registry.all(), (id) => this.registry.aliasesOf(id), (e, m, a, o) => this.invoke(e, m, a, o)));
  }

  /** capabilities() of one section's instances. */
  async list(section: Section): Promise<InstanceCapabilities[]> {
    const entries = this.registry.all().filter((e) => e.section === section);
    return this.scrubber.scrubValue(await describeInstances(entries, (id) => this.registry.aliasesOf(id), (e, m, a, o) => this.invoke(e, m, a, o)));
  }

  /** Delivers to every agent connector whose list_agents() includes `agent_id`, all with one dispatch_id. */
  async broadcast(agent_id: string, payload: OutgoingPayload, opts: CallOptions = {}): Promise<BroadcastResult> {
    try {
      if (this.closed) throw pbError("PB_ERR_HOST_CLOSED", "The host is closed.", {});
      const invoke = (e: InstanceEntry, m: string, a: unknown[], o: CallOptions, meta?: HostMeta) => this.invoke(e, m, a, o, meta);
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
    this.updateListeners.add(fn);
    return () => void this.updateListeners.delete(fn);
  }

  /** Internal (host.ts wires each worker here): a worker reported that `uri` changed. */
  resourceUpdated(instance: string, uri: string): void {
    if (this.closed || this.updateListeners.size === 0) return;
    const update = { instance, uri: this.scrubber.scrub(uri) };
    for (const fn of this.updateListeners) {
      try {
        fn(update);
      } catch {
        // One listener failing must not keep the update from the others.
      }
    }
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
    await Promise.all(this.registry.all().map(async (e) => {
      await e.worker?.stop();
      if (e.state === "ready" || e.state === "degraded") e.state = "stopped";
    }));
  }

  /**
   * serve (issue 9): re-runs every instance's health_check on its interval; `onChange` hears an
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

  /** serve (issue 9): per instance, what `patchbay status` shows besides call statistics. */
  liveStatus(): LiveInstanceStatus[] {
    return this.scrubber.scrubValue(this.registry.all().map((e) => ({
      id: e.id, plugin: e.plugin, required: e.required, state: e.state, healthy: isHealthy(e), healthMs: e.healthMs,
      lastHealthAt: e.lastHealthAt ?? null, restarts: e.restarts ?? 0, error: e.error,
    })));
  }

  /** Internal (hot reload, issue 9): the registry, for swapping one instance's entry. */
  get registryForReload(): Registry {
    return this.registry;
  }

  /**
   * Internal: used by the health pass and by grants (plugin → host calls). Never throws: every
   * failure is a rejection. Not an async function: the common call is one chain of `then`s on the
   * worker's promise (no async frame and no await ticks of its own), which is every call's path.
   */
  invoke(entry: InstanceEntry, method: string, args: unknown[], opts: CallOptions = {}, hostMeta?: HostMeta): Promise<unknown> {
    try {
      if (!entry.worker || !entry.target || !entry.planned) {
        throw pbError("PB_ERR_INSTANCE_UNAVAILABLE", `${entry.id} is ${entry.state}${entry.error ? ` (${entry.error.message})` : ""}.`, { instance: entry.id, state: entry.state });
      }
      const target = entry.target;
      const sent = checkCall(target, method, args, hostMeta);
      const timeoutMs = opts.timeoutMs ?? contractTimeout(target, method, sent) ?? entry.planned.timeoutMs;
      // Listed alongside the call, not before it: the call is sent at once, in the caller's order; only its result waits.
      const learning = target.kind === "mcp" && method === "call" && !knowsTools(target) ? this.learnTools(entry, timeoutMs) : null;
      if (target.kind === "agent" && method === "deliver") return this.deliver(entry, sent, timeoutMs, opts.signal);
      const onProgress = opts.onProgress ? this.scrubbedProgress(opts.onProgress) : undefined;
      return watchSubstrate(entry, entry.worker.call(method, sent, timeoutMs, onProgress, opts.signal)).then((result) =>
        learning ? learning.then(() => checkResult(target, method, sent, result)) : checkResult(target, method, sent, result));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** An agent delivery: every delivery that crossed is recorded, acknowledged or not. */
  private async deliver(entry: InstanceEntry, sent: unknown[], timeoutMs: number, signal?: AbortSignal): Promise<unknown> {
    try {
      const receipt = checkResult(entry.target!, "deliver", sent, await watchSubstrate(entry, entry.worker!.call("deliver", sent, timeoutMs, undefined, signal)));
      this.receiptLog.recordDelivery(entry.id, sent, { result: receipt });
      return receipt;
    } catch (err) {
      this.receiptLog.recordDelivery(entry.id, sent, { error: err });
      throw err;
    }
  }

  /**
   * The host checks structuredContent against each tool's outputSchema, which it learns from
   * list_tools: with the first call of an instance whose tools it has not seen, it lists them
   * once, bounded by LEARN_TOOLS_MS. A failed listing does not fail the call; it is tried again
   * after a while (mcp-checks.ts), not before every call.
   */
  private async learnTools(entry: InstanceEntry, timeoutMs: number): Promise<void> {
    try {
      await this.invoke(entry, "list_tools", [], { timeoutMs: Math.min(timeoutMs, LEARN_TOOLS_MS) });
    } catch {
      // The call itself reports whatever is wrong with the instance.
      toolsUnknown(entry.target!);
    }
  }

  private scrubbedProgress(fn: (update: ProgressUpdate) => void): (update: ProgressUpdate) => void {
    return (u) => fn(u.message === undefined ? u : { ...u, message: this.scrubber.scrub(u.message) });
  }

  private proxy<T>(section: Section, name: string): Remote<T> {
    const id = `${section}/${name}`;
    return new Proxy({} as Remote<T>, {
      get: (_t, method) => (typeof method !== "string" || method === "then")
        ? undefined
        : (...args: unknown[]) => this.call(id, method, args),
    });
  }

  private instanceReport(e: InstanceEntry): InstanceReport {
    return {
      id: e.id, section: e.section, name: e.name, plugin: e.plugin, version: e.version, required: e.required, isolation: e.isolation,
      state: e.state, healthMs: e.healthMs, aliases: this.registry.aliasesOf(e.id), error: e.error,
    };
  }

  private scrubError(err: unknown): PatchbayError {
    const wire = toWire(err);
    return new PatchbayError(wire.code, this.scrubber.scrub(wire.message), this.scrubber.scrubValue(wire.data), wire.hint);
  }
}
