/**
 * The embedder's API over a booted registry: typed accessors per section, calls through the
 * guard with deadlines, the boot report, and close(). Every error that leaves here is scrubbed.
 */
import { pbError, PatchbayError, toWire, type WireError } from "./errors.js";
import type { Section } from "./contract/kinds.js";
import type { AgentConnector, LocalModel, McpConnector, MemoryStore, SkillStore, AdapterPlugin } from "./contract/types.js";
import { checkCall, checkResult } from "./rpc/guard.js";
import type { InstanceEntry, InstanceState, Registry } from "./registry/registry.js";
import type { Scrubber } from "./secrets.js";
import type { Logger } from "./log.js";

export interface CallOptions {
  /** Overrides the instance's timeout_ms for this call. */
  timeoutMs?: number;
}

export interface InstanceReport {
  id: string;
  section: Section;
  name: string;
  plugin: string;
  version: string;
  required: boolean;
  state: InstanceState;
  healthMs: number | null;
  aliases: string[];
  error: WireError | null;
}

export interface BootReport {
  configFile: string | null;
  ok: boolean;
  instances: InstanceReport[];
  /** Problems that belong to no instance and fail the boot (two plugins with one name). */
  problems: WireError[];
  /** Problems that do not fail the boot (a plugin folder that is missing, an unused broken plugin). */
  warnings: WireError[];
}

/** A connector proxy: contract methods become calls through the boundary. */
type Remote<T> = { [K in keyof T as K extends "close" ? never : K]-?: T[K] extends (...a: infer A) => Promise<infer R> ? (...a: A) => Promise<R> : never };

export class Host {
  private closed = false;

  constructor(
    private readonly registry: Registry,
    readonly scrubber: Scrubber,
    readonly logger: Logger,
    private readonly configFile: string | null,
    private readonly problems: WireError[],
    private readonly warnings: WireError[],
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
  agent(name = "primary"): Remote<AgentConnector> {
    return this.proxy("agentConnectors", name);
  }
  skills(name = "primary"): Remote<SkillStore> {
    return this.proxy("skillStores", name);
  }
  adapter(name: string): Remote<AdapterPlugin> {
    return this.proxy("adapters", name);
  }

  /** Calls `method` on instance "section/name" through the guard. */
  async call(id: string, method: string, args: unknown[] = [], opts: CallOptions = {}): Promise<unknown> {
    try {
      if (this.closed) throw pbError("PB_ERR_HOST_CLOSED", "The host is closed.", {});
      const entry = this.registry.get(id);
      return await this.invoke(entry, method, args, opts);
    } catch (err) {
      throw this.scrubError(err);
    }
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

  /** Internal: used by the health pass and by grants (plugin → host calls). */
  async invoke(entry: InstanceEntry, method: string, args: unknown[], opts: CallOptions = {}): Promise<unknown> {
    if (!entry.worker || !entry.target || !entry.planned) {
      throw pbError("PB_ERR_INSTANCE_UNAVAILABLE", `${entry.id} is ${entry.state}${entry.error ? ` (${entry.error.message})` : ""}.`, { instance: entry.id, state: entry.state });
    }
    const sent = checkCall(entry.target, method, args);
    const timeoutMs = opts.timeoutMs ?? entry.planned.timeoutMs;
    const result = await entry.worker.call(method, sent, timeoutMs);
    return checkResult(entry.target, method, sent, result);
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
      id: e.id, section: e.section, name: e.name, plugin: e.plugin, version: e.version, required: e.required,
      state: e.state, healthMs: e.healthMs, aliases: this.registry.aliasesOf(e.id), error: e.error,
    };
  }

  private scrubError(err: unknown): PatchbayError {
    const wire = toWire(err);
    return new PatchbayError(wire.code, this.scrubber.scrub(wire.message), this.scrubber.scrubValue(wire.data), wire.hint);
  }
}
