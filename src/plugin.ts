/**
 * `patchbay/plugin`: the authoring API. A plugin folder imports only this module (the host
 * resolves it for folders without node_modules), so it re-exports `z` and the contract types.
 */
import { z } from "zod";
import type { Kind } from "./contract/kinds.js";
import type { KindContracts } from "./contract/types.js";

export { z };
/** The host's own check for names that become file names; plugins use it for defence in depth. */
export { portableNameProblem } from "./contract/names.js";
export { unavailable, UnavailableError, unsupported, UnsupportedError } from "./contract/unavailable.js";
/** The curated-field rule of PortableMemory: the fields that live at the top level only, and helpers. */
export {
  CURATED_MEMORY_FIELDS,
  curatedFieldInMetadata,
  hoistCuratedFields,
  isCuratedMemoryField,
} from "./contract/memory.js";
export type { CuratedMemoryField } from "./contract/memory.js";
export type { Kind } from "./contract/kinds.js";
export type {
  AdapterPlugin,
  AgentConnector,
  AgentDescriptor,
  AgentResponse,
  AgentStatus,
  DeliveryMeta,
  DeliveryPayload,
  DeliveryReceipt,
  KindContracts,
  LocalModel,
  McpConnector,
  McpDispatchCtx,
  MemoryStore,
  MemoryWrite,
  PortableMemory,
  QueryFilters,
  RequestResponseOpts,
  RunOptions,
  SkillRecord,
  SkillStore,
  ToolDescriptor,
  TriggerKind,
  TriggerProvenance,
  WakeOpts,
  WakeReceipt,
  ToolResult,
  ResourceDescriptor,
  ResourceTemplateDescriptor,
  ReadResourceResult,
  PromptDescriptor,
  GetPromptResult,
  McpServerInfo,
} from "./contract/types.js";

/** Brand through the global symbol registry: the plugin and the worker may load separate copies of this module. */
export const PLUGIN_BRAND = Symbol.for("patchbay.plugin");

export interface PluginLog {
  trace(msg: string, data?: Record<string, unknown>): void;
  trace(data: Record<string, unknown>, msg: string): void;
  debug(msg: string, data?: Record<string, unknown>): void;
  debug(data: Record<string, unknown>, msg: string): void;
  info(msg: string, data?: Record<string, unknown>): void;
  info(data: Record<string, unknown>, msg: string): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  warn(data: Record<string, unknown>, msg: string): void;
  error(msg: string, data?: Record<string, unknown>): void;
  error(data: Record<string, unknown>, msg: string): void;
}

/** A granted instance, callable method by method: `await ctx.connectors.get("memoryStores/primary").query({...})`. */
export type GrantedConnector = Record<string, (...args: unknown[]) => Promise<unknown>>;

export interface PluginContext {
  /** "section/name" of this instance. */
  readonly instance: string;
  readonly log: PluginLog;
  /**
   * Aborts when the call in progress passes its deadline or is cancelled. Read it inside a method;
   * outside a call it is the instance's signal, which aborts when the instance closes.
   */
  readonly signal: AbortSignal;
  /** Milliseconds left before the current call's deadline (Infinity outside a call). */
  remainingMs(): number;
  /**
   * Reports progress of the call in progress to its caller (host.call(..., { onProgress })); a
   * no-op outside a call or when the caller did not ask. mcp-remote relays MCP progress here.
   */
  progress?(update: { progress: number; total?: number; message?: string }): void;
  /**
   * Tells the host that resource `uri` changed (an mcp plugin, for URIs subscribe_resource was
   * asked for; mcp-remote relays the server's notifications/resources/updated). Any time, not only
   * inside a call; the host caps the rate and ignores URIs nobody subscribed to.
   */
  resourceUpdated?(uri: string): void;
  /**
   * Tells the host that a list the plugin offers changed (an mcp plugin: "tools", "prompts" or
   * "resources"; mcp-remote relays the server's list_changed notifications). Any time; the host
   * reads the list again when it chooses (the gateway: at most once a second), checks it against
   * connectors.lock.json, and only then tells its clients.
   */
  listChanged?(list: "tools" | "prompts" | "resources"): void;
  /**
   * The call in progress as a handle the plugin may keep: its deadline, signal and progress stay
   * this call's after the method's awaits, wherever the plugin reads them. Null outside a call.
   * Read it when the method starts if the plugin's definition says `callContext: "sync"`.
   */
  currentCall?(): CallHandle | null;
  /**
   * The plugin's own spans in the caller's trace: `ctx.trace.span(name, fn)` runs `fn` in a span,
   * child of the host's span for the call in progress, and returns what `fn` returns (a promise
   * ends the span when it settles; a throw or rejection marks it failed). When the call is not
   * traced, or outside a call, `fn` gets a span that records nothing and whose `traceparent` is
   * undefined. Absent on older hosts.
   */
  readonly trace?: PluginTrace;
  /** Instances this plugin's manifest `requires` and its connectors.json entry `grants`. */
  readonly connectors: { get(target: string): GrantedConnector; list(): string[] };
}

export type SpanAttributeValue = string | number | boolean;

export interface SpanOptions {
  /** "client" for a span around a request to another service (an upstream server). @default "internal" */
  kind?: "internal" | "client";
  attributes?: Record<string, SpanAttributeValue>;
}

/** One of the plugin's spans, as `fn` of `ctx.trace.span` gets it. */
export interface PluginSpan {
  /** W3C traceparent naming this span, to pass upstream (a `traceparent` header, MCP `_meta`); undefined untraced. */
  readonly traceparent: string | undefined;
  /** At most 16 per span; keys like `http.response.status_code`; strings are cut at 256 characters. */
  setAttribute(key: string, value: SpanAttributeValue): void;
  /** Marks the span failed (a throw or rejection out of `fn` does too). */
  setError(message?: string): void;
  /** A child span of this one. */
  span<T>(name: string, fn: (span: PluginSpan) => T, opts?: SpanOptions): T;
}

/**
 * ctx.trace. Spans are recorded in the worker and sent to the host with the call's result, at
 * most 32 per call (later ones record nothing); a span still open when the call returns is lost.
 */
export interface PluginTrace {
  span<T>(name: string, fn: (span: PluginSpan) => T, opts?: SpanOptions): T;
  /** W3C traceparent of the host's span for the call in progress; undefined when not traced. */
  readonly traceparent: string | undefined;
}

/** One call in progress (ctx.currentCall()). */
export interface CallHandle {
  /** W3C traceparent of the host's span for this call; undefined when it is not traced. Absent on older hosts. */
  readonly traceparent?: string;
  /** When the call's deadline passes (ms since the epoch), or Infinity. */
  readonly deadline: number;
  /** Aborts when the call passes its deadline or is cancelled. */
  readonly signal: AbortSignal;
  /** As ctx.progress, for this call. */
  progress(update: { progress: number; total?: number; message?: string }): void;
  /**
   * Whether the call has aborted, as `signal.aborted`, and `onAbort` runs `listener` once with
   * `signal`'s reason when it aborts (never if it already has: read `aborted` first); it returns
   * the function that removes the listener. Neither makes `signal`: reading `signal` creates an
   * AbortController, several microseconds per call on Node 20, which a plugin on a hot path can
   * spare. Absent on older hosts: fall back to `signal`.
   */
  readonly aborted?: boolean;
  onAbort?(listener: (reason: Error) => void): () => void;
}

export interface PluginDefinition<K extends Kind, S extends z.ZodType> {
  kind: K;
  /** The instance's config schema; mark secret fields with `.meta({ secret: true })`. */
  config: S;
  /**
   * How the plugin finds the call in progress. "async" (the default): ctx.signal,
   * ctx.remainingMs(), ctx.progress() and ctx.currentCall() see the call anywhere in its method,
   * after awaits too. "sync": only while the method runs synchronously (before its first await);
   * later they answer as outside a call, so the plugin keeps ctx.currentCall() from the start.
   * "sync" spares the thread the runtime's call tracking across awaits (AsyncLocalStorage, whose
   * promise hooks make every promise on the thread slower on Node 20).
   */
  callContext?: "async" | "sync";
  create(config: z.output<S>, ctx: PluginContext): KindContracts[K] | Promise<KindContracts[K]>;
}

export type DefinedPlugin<K extends Kind = Kind, S extends z.ZodType = z.ZodType> = Readonly<PluginDefinition<K, S>> & {
  readonly [PLUGIN_BRAND]: true;
};

export function definePlugin<K extends Kind, S extends z.ZodType>(
  definition: PluginDefinition<K, S>,
): DefinedPlugin<K, S> {
  return Object.freeze({ ...definition, [PLUGIN_BRAND]: true as const });
}

/** Throw from a contract method the plugin does not support (e.g. an agent's request_response). */
export class NotImplementedError extends Error {
  readonly code = "PB_ERR_NOT_IMPLEMENTED";
  constructor(method: string) {
    super(`${method} is not implemented by this plugin`);
    this.name = "NotImplementedError";
  }
}
