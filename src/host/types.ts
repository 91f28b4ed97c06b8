/**
 * The types of the embedder's API (api.ts): call options, the boot report and its rows,
 * the status rows, and the typed connector proxies. Apart so api.ts holds behaviour only.
 */
import type { WireError } from "../errors.js";
import type { Section } from "../contract/kinds.js";
import type {
  AgentConnector,
  AgentResponse,
  DeliveryReceipt,
  OutgoingPayload,
  RequestResponseOpts,
} from "../contract/types.js";
import type { ProgressUpdate } from "../rpc/client.js";
import type { CallTrace } from "../rpc/call-spans.js";
import type { InstanceState } from "../registry/registry.js";

export interface CallOptions {
  /** Overrides the instance's timeout_ms for this call. */
  timeoutMs?: number;
  /** Progress of this call as the plugin reports it (mcp: the server's notifications/progress); text is scrubbed. */
  onProgress?: (update: ProgressUpdate) => void;
  /**
   * Withdraws the call when it aborts: it rejects with PB_ERR_CALL_CANCELLED and the plugin's
   * ctx.signal aborts (mcp-remote then sends notifications/cancelled upstream).
   */
  signal?: AbortSignal;
  /**
   * Traces the call: the plugin runs it under `trace.traceparent` (a W3C traceparent, version
   * 00; any other is not sent) and its own spans, checked and bounded, go to `trace.spans`.
   */
  trace?: CallTrace;
}

/** A subscribed MCP resource changed (host.onResourceUpdated). */
export interface ResourceUpdate {
  /** The instance that reported it ("section/name"). */
  instance: string;
  uri: string;
}

/** An instance's offered list may have changed (host.onListChanged); "all" when its worker restarts. */
export interface ListChange {
  instance: string;
  list: "tools" | "prompts" | "resources" | "all";
}

export interface InstanceReport {
  id: string;
  section: Section;
  name: string;
  plugin: string;
  version: string;
  required: boolean;
  /** "thread", "process", "sandbox" or "host" (connectors.json "isolation"). */
  isolation: "thread" | "process" | "sandbox" | "host";
  state: InstanceState;
  healthMs: number | null;
  aliases: string[];
  error: WireError | null;
}

/** One row of `patchbay status` (before the gateway adds call statistics). */
export interface LiveInstanceStatus {
  id: string;
  plugin: string;
  required: boolean;
  state: InstanceState;
  healthy: boolean;
  healthMs: number | null;
  lastHealthAt: number | null;
  restarts: number;
  error: WireError | null;
  /**
   * What its upstream server asked of it (sampling, elicitation, roots), as the plugin last
   * reported; null when never.
   */
  clientRequests: { served: number; refused: number } | null;
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

/** A connector proxy: contract methods (optional ones included) become calls through the boundary. */
export type Remote<T> = {
  [K in keyof T as K extends "close" ? never : K]-?: NonNullable<T[K]> extends (...a: infer A) => Promise<infer R>
    ? (...a: A) => Promise<R>
    : never;
};

/** The agent proxy takes payloads whose meta the host completes (callers never construct DeliveryMeta). */
export type AgentClient = Omit<Remote<AgentConnector>, "deliver" | "request_response"> & {
  deliver(agent_id: string, payload: OutgoingPayload): Promise<DeliveryReceipt>;
  request_response(agent_id: string, payload: OutgoingPayload, opts: RequestResponseOpts): Promise<AgentResponse>;
};
