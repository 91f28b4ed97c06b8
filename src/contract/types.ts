/**
 * The TypeScript side of each kind's contract: what a plugin's create() returns. The zod
 * schemas in schemas.ts check the same shapes at the boundary at run time.
 */

export interface PortableMemory {
  id: string;
  summary: string;
  detail?: string;
  score?: number;
  thread_status?: string;
  pinned?: boolean;
  confidence?: number;
  domain_tags?: string[];
  payload_type?: string;
  knowledge_type?: string;
  recipients?: string[];
  expires_at?: number;
  created_at?: number;
  agent_id?: string;
  vault?: string;
  metadata?: Record<string, unknown>;
}

export interface QueryFilters {
  query: string;
  limit: number;
  mode: string;
  [key: string]: unknown;
}

/** What write() takes: a PortableMemory without `score` (a query computes it), `id` optional. */
export interface MemoryWrite extends Omit<PortableMemory, "id" | "score"> {
  id?: string;
  [key: string]: unknown;
}

export interface MemoryStore {
  health_check(): Promise<boolean>;
  query(filters: QueryFilters): Promise<PortableMemory[]>;
  write?(record: MemoryWrite): Promise<{ id: string; created_at: number }>;
  get?(id: string): Promise<PortableMemory | null>;
  close?(): Promise<void>;
}

export interface RunOptions {
  model?: string;
  max_tokens?: number;
  temperature?: number;
  timeout_ms?: number;
}

export interface LocalModel {
  health_check(): Promise<boolean>;
  run(prompt: string, opts?: RunOptions): Promise<string>;
  embed?(texts: string[]): Promise<number[][]>;
  close?(): Promise<void>;
}

export interface ToolDescriptor {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  /** When given, the host checks every successful call's structuredContent against it. */
  outputSchema?: Record<string, unknown>;
  /** MCP tool annotations (readOnlyHint, destructiveHint, ...): hints, never trusted for security. */
  annotations?: Record<string, unknown>;
}

/** MCP's CallToolResult, as a call answers it. */
export interface ToolResult {
  content: { type: string; [key: string]: unknown }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

export interface ResourceDescriptor {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  [key: string]: unknown;
}

export interface ResourceTemplateDescriptor {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  [key: string]: unknown;
}

/** MCP's ReadResourceResult: each content has exactly one of text and blob (base64). */
export interface ReadResourceResult {
  contents: { uri: string; mimeType?: string; text?: string; blob?: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

export interface PromptDescriptor {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  [key: string]: unknown;
}

export interface GetPromptResult {
  description?: string;
  messages: { role: "user" | "assistant"; content: { type: string; [key: string]: unknown } }[];
  [key: string]: unknown;
}

/** What the server said about itself when the session started (MCP initialize). */
export interface McpServerInfo {
  name?: string;
  version?: string;
  title?: string;
  instructions?: string;
  [key: string]: unknown;
}

/** Per-call context for an MCP call; the instance's configured identity is merged over it. */
export interface McpDispatchCtx {
  agentId?: string;
  isAdmin?: boolean;
  [key: string]: unknown;
}

export interface McpConnector {
  health_check(): Promise<boolean>;
  call(tool: string, args: Record<string, unknown>, ctxOverrides?: McpDispatchCtx): Promise<unknown>;
  list_tools(): Promise<ToolDescriptor[]>;
  list_resources?(): Promise<ResourceDescriptor[]>;
  read_resource?(uri: string): Promise<ReadResourceResult>;
  list_resource_templates?(): Promise<ResourceTemplateDescriptor[]>;
  /** MCP resources/subscribe: from now on the plugin reports `uri`'s changes with ctx.resourceUpdated(uri). */
  subscribe_resource?(uri: string): Promise<void>;
  /** MCP resources/unsubscribe: the plugin stops reporting `uri`. */
  unsubscribe_resource?(uri: string): Promise<void>;
  list_prompts?(): Promise<PromptDescriptor[]>;
  get_prompt?(name: string, args?: Record<string, string>): Promise<GetPromptResult>;
  server_info?(): Promise<McpServerInfo>;
  close?(): Promise<void>;
}

export type TriggerKind = "cron" | "session" | "webhook" | "agent" | "cli" | "dashboard" | "inline";

export interface DeliveryMeta {
  dispatch_id: string;
  sent_at: number;
  origin: { skill_name: string; entry_skill_name?: string; trigger_kind: TriggerKind; caller_agent_id?: string };
  event_type?: string;
  correlation_id?: string;
}

export interface TriggerProvenance {
  source: "cron" | "session" | "event" | "agent-event" | "file-watch" | "sensor" | "manual";
  name: string;
  fired_at_ms: number;
}

interface PayloadProvenance {
  source_skill?: string;
  triggered_by?: TriggerProvenance;
  delivery_context?: string;
  templates?: string[];
}

export type DeliveryPayload =
  | ({ kind: "augment"; content: string; format?: "text" | "markdown"; meta: DeliveryMeta } & PayloadProvenance)
  | ({ kind: "template"; prompt: string; meta: DeliveryMeta } & PayloadProvenance);

/** The meta a caller may set; the host fills dispatch_id and sent_at (and origin when absent) on every call. */
export type CallerMeta = Partial<Omit<DeliveryMeta, "dispatch_id" | "sent_at">>;

/** What a caller hands to deliver()/broadcast()/request_response(): a payload whose meta the host completes. */
export type OutgoingPayload =
  | ({ kind: "augment"; content: string; format?: "text" | "markdown"; meta?: CallerMeta } & PayloadProvenance)
  | ({ kind: "template"; prompt: string; meta?: CallerMeta } & PayloadProvenance);

export interface DeliveryReceipt {
  delivered_at: number;
  delivery_id?: string;
  delivery_skipped?: boolean;
}

/** Seed 001: who a connector can deliver to. */
export interface AgentDescriptor {
  agent_id: string;
  agent_name?: string;
  capabilities?: ("deliver" | "wake" | "augment" | "template")[];
}

export interface WakeOpts {
  /** Why the agent is woken, in prose the agent reads. */
  context?: string;
  /** "immediate" (default) or a unix-ms time to wake at. */
  when?: "immediate" | number;
}

export interface WakeReceipt {
  woken_at: number;
  session_id?: string;
}

export interface RequestResponseOpts {
  /**
   * Required: the receiver echoes it on its reply (seed 000, meta.correlation_id). The host copies
   * it into payload.meta.
   */
  correlation_id: string;
  timeout_ms?: number;
}

export interface AgentResponse {
  /** Must equal the request's correlation_id; the host refuses a reply that does not echo it. */
  correlation_id: string;
  content: string;
  responded_at?: number;
}

/** Seed 001: pure metadata; the host never gates delivery on it. */
export type AgentStatus = "active" | "idle" | "asleep" | "unknown";

export interface AgentConnector {
  health_check(): Promise<boolean>;
  list_agents(): Promise<AgentDescriptor[]>;
  deliver(agent_id: string, payload: DeliveryPayload): Promise<DeliveryReceipt>;
  wake(agent_id: string, opts?: WakeOpts): Promise<WakeReceipt>;
  request_response(agent_id: string, payload: DeliveryPayload, opts: RequestResponseOpts): Promise<AgentResponse>;
  agent_status?(agent_id: string): Promise<AgentStatus>;
  close?(): Promise<void>;
}

export interface SkillRecord {
  name: string;
  body: string;
  updated_at?: number;
  [key: string]: unknown;
}

export interface SkillStore {
  health_check(): Promise<boolean>;
  get(name: string): Promise<SkillRecord | null>;
  write(name: string, body: string): Promise<void>;
  list(): Promise<string[]>;
  delete(name: string): Promise<boolean>;
  close?(): Promise<void>;
}

/** Adapter plugins are specified by the adapters work; until then they are an open object. */
export interface AdapterPlugin {
  health_check(): Promise<boolean>;
  [method: string]: unknown;
}

export interface KindContracts {
  "memory-store": MemoryStore;
  "local-model": LocalModel;
  mcp: McpConnector;
  agent: AgentConnector;
  "skill-store": SkillStore;
  adapter: AdapterPlugin;
}
