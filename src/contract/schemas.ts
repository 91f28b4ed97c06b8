/**
 * Run-time schemas of every contract method: arguments (checked before a call crosses the
 * boundary) and results (checked when it comes back). One table, used only by guard/guard.ts, so
 * nothing is validated twice.
 *
 * Longer than 300 lines on purpose: it is the single declaration every contract form derives from
 * (types via drift.ts, fast and wire checks via the property test); one file keeps it one source.
 */
import { z } from "zod";
import type { Kind } from "./kinds.js";
import { MAX_RESOURCE_URI_CHARS } from "./rpc.js";
import {
  AdapterEnvSchema,
  AdapterManifestSchema,
  ClientProbeSchema,
  DetectResultSchema,
  DoctorResultSchema,
  GuardDecisionSchema,
  HookOutcomeSchema,
  InstallPlanSchema,
  NormalizedEventSchema,
  PeerMessageSchema,
  RenderInputSchema,
  RenderOptionsSchema,
  RenderResultSchema,
  TrustResultSchema,
} from "../adapter-sdk/contract.js";

const json = z.unknown();
const nonEmpty = z.string().min(1);

/** Seed 001 PortableMemory: core fields, the curated subset (top level only), and the metadata bag. */
const memoryFields = {
  id: nonEmpty,
  summary: z.string(),
  detail: z.string().optional(),
  score: z.number().optional(),
  thread_status: z.string().optional(),
  pinned: z.boolean().optional(),
  confidence: z.number().optional(),
  domain_tags: z.array(z.string()).optional(),
  payload_type: z.string().optional(),
  knowledge_type: z.string().optional(),
  recipients: z.array(z.string()).optional(),
  expires_at: z.number().optional(),
  created_at: z.number().optional(),
  agent_id: z.string().optional(),
  vault: z.string().optional(),
  metadata: z.record(z.string(), json).optional(),
};

// Loose: a store may return substrate fields beyond the seed's; only the seed's are typed here.
export const PortableMemorySchema = z.looseObject(memoryFields);

export const QueryFiltersSchema = z.looseObject({
  query: z.string(),
  limit: z.number().int().positive().max(10_000),
  mode: nonEmpty,
});

/** write(): a PortableMemory without `score` (a query computes it); `id` optional (the store assigns one). */
export const MemoryWriteSchema = z.looseObject({
  ...memoryFields,
  id: nonEmpty.optional(),
  score: z.never().optional(),
});

export const MemoryWriteResultSchema = z.looseObject({ id: nonEmpty, created_at: z.number() });

export const ToolDescriptorSchema = z.looseObject({
  name: nonEmpty,
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), json).optional(),
  outputSchema: z.record(z.string(), json).optional(),
  annotations: z.record(z.string(), json).optional(),
});

// --- MCP resources and prompts: MCP's own shapes (loose, so a newer server's extra fields pass through) ---

/** A call result: MCP's CallToolResult (content, structuredContent?, isError?). */
export const ToolResultSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })),
  structuredContent: z.record(z.string(), json).optional(),
  isError: z.boolean().optional(),
});

export const ResourceSchema = z.looseObject({
  uri: nonEmpty,
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
});

export const ResourceTemplateSchema = z.looseObject({
  uriTemplate: nonEmpty,
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
});

export const ResourceContentsSchema = z
  .looseObject({
    uri: z.string(),
    mimeType: z.string().optional(),
    text: z.string().optional(),
    blob: z.string().optional(),
  })
  .refine(
    (c) => (c.text === undefined) !== (c.blob === undefined),
    "each resource content carries exactly one of text and blob",
  );

/**
 * The URI of a resource subscription: bounded, because the updates a plugin sends back name it
 * and the host refuses longer ones there (contract/rpc-check.ts), so every URI one can subscribe
 * to can also be reported updated.
 */
export const SubscriptionUriSchema = nonEmpty.max(MAX_RESOURCE_URI_CHARS);

/** subscribe_resource / unsubscribe_resource answer nothing (MCP's empty result). */
const NothingSchema = z.union([z.undefined(), z.null()]);

export const ReadResourceResultSchema = z.looseObject({ contents: z.array(ResourceContentsSchema) });

export const PromptSchema = z.looseObject({
  name: nonEmpty,
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z
    .array(z.looseObject({ name: nonEmpty, description: z.string().optional(), required: z.boolean().optional() }))
    .optional(),
});

export const GetPromptResultSchema = z.looseObject({
  description: z.string().optional(),
  messages: z.array(
    z.looseObject({ role: z.enum(["user", "assistant"]), content: z.looseObject({ type: z.string() }) }),
  ),
});

export const ServerInfoSchema = z.looseObject({
  name: z.string().optional(),
  version: z.string().optional(),
  title: z.string().optional(),
  instructions: z.string().optional(),
});

const TriggerKindSchema = z.enum(["cron", "session", "webhook", "agent", "cli", "dashboard", "inline"]);

export const DeliveryMetaSchema = z.strictObject({
  dispatch_id: nonEmpty,
  sent_at: z.number().int().nonnegative(),
  origin: z.strictObject({
    skill_name: z.string(),
    entry_skill_name: z.string().optional(),
    trigger_kind: TriggerKindSchema,
    caller_agent_id: z.string().optional(),
  }),
  event_type: z.string().optional(),
  correlation_id: z.string().optional(),
});

const ProvenanceShape = {
  source_skill: z.string().optional(),
  triggered_by: z
    .strictObject({
      source: z.enum(["cron", "session", "event", "agent-event", "file-watch", "sensor", "manual"]),
      name: z.string(),
      fired_at_ms: z.number(),
    })
    .optional(),
  delivery_context: z.string().optional(),
  templates: z.array(z.string()).optional(),
};

export const DeliveryPayloadSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("augment"),
    content: z.string(),
    format: z.enum(["text", "markdown"]).optional(),
    meta: DeliveryMetaSchema,
    ...ProvenanceShape,
  }),
  z.strictObject({ kind: z.literal("template"), prompt: z.string(), meta: DeliveryMetaSchema, ...ProvenanceShape }),
]);

export const DeliveryReceiptSchema = z.looseObject({
  delivered_at: z.number(),
  delivery_id: z.string().optional(),
  delivery_skipped: z.boolean().optional(),
});

export const SkillRecordSchema = z.looseObject({ name: nonEmpty, body: z.string(), updated_at: z.number().optional() });

/** Seed 001 AgentDescriptor. */
export const AgentDescriptorSchema = z.looseObject({
  agent_id: nonEmpty,
  agent_name: z.string().optional(),
  capabilities: z.array(z.enum(["deliver", "wake", "augment", "template"])).optional(),
});

export const WakeOptsSchema = z.strictObject({
  context: z.string().optional(),
  when: z.union([z.literal("immediate"), z.number().int().nonnegative()]).optional(),
});

export const WakeReceiptSchema = z.looseObject({ woken_at: z.number(), session_id: z.string().optional() });

export const RequestResponseOptsSchema = z.strictObject({
  correlation_id: nonEmpty,
  timeout_ms: z.number().int().positive().optional(),
});

export const AgentResponseSchema = z.looseObject({
  correlation_id: nonEmpty,
  content: z.string(),
  responded_at: z.number().optional(),
});

export const AgentStatusSchema = z.enum(["active", "idle", "asleep", "unknown"]);

export const RunOptionsSchema = z.strictObject({
  model: z.string().min(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  temperature: z.number().min(0).max(2).optional(),
  timeout_ms: z.number().int().positive().optional(),
});

/**
 * Non-empty vectors of finite numbers; the host checks count and dimension. A plain loop, not
 * z.array(z.number()): embeddings are large (32 × 768 numbers took zod ~740 µs, the loop ~20 µs).
 */
export const EmbeddingsSchema = z.custom<number[][]>((value) => {
  if (!Array.isArray(value)) return false;
  for (const row of value) {
    if (!Array.isArray(row) || row.length === 0) return false;
    for (let i = 0; i < row.length; i++) if (typeof row[i] !== "number" || !Number.isFinite(row[i])) return false;
  }
  return true;
}, "must be an array of non-empty vectors of finite numbers");

export interface MethodSchema {
  /** The positional arguments, as a tuple. */
  args: z.ZodType;
  result: z.ZodType;
}

const m = <A extends z.ZodType, R extends z.ZodType>(args: A, result: R) => ({ args, result });
const health = m(z.tuple([]), z.boolean());

/**
 * `satisfies`, not a type annotation: each method keeps its own schema type, so drift.ts can hold
 * the TypeScript contract (types.ts) to these schemas at compile time.
 */
export const CONTRACT_SCHEMAS = {
  "memory-store": {
    health_check: health,
    query: m(z.tuple([QueryFiltersSchema]), z.array(PortableMemorySchema)),
    write: m(z.tuple([MemoryWriteSchema]), MemoryWriteResultSchema),
    get: m(z.tuple([nonEmpty]), PortableMemorySchema.nullable()),
  },
  "local-model": {
    health_check: health,
    run: m(z.tuple([z.string()], RunOptionsSchema.optional()), z.string()),
    embed: m(z.tuple([z.array(z.string()).min(1).max(10_000)]), EmbeddingsSchema),
  },
  mcp: {
    health_check: health,
    call: m(z.tuple([nonEmpty, z.record(z.string(), json)], z.record(z.string(), json).optional()), json),
    list_tools: m(z.tuple([]), z.array(ToolDescriptorSchema)),
    list_resources: m(z.tuple([]), z.array(ResourceSchema)),
    read_resource: m(z.tuple([nonEmpty]), ReadResourceResultSchema),
    list_resource_templates: m(z.tuple([]), z.array(ResourceTemplateSchema)),
    subscribe_resource: m(z.tuple([SubscriptionUriSchema]), NothingSchema),
    unsubscribe_resource: m(z.tuple([SubscriptionUriSchema]), NothingSchema),
    list_prompts: m(z.tuple([]), z.array(PromptSchema)),
    get_prompt: m(z.tuple([nonEmpty], z.record(z.string(), z.string()).optional()), GetPromptResultSchema),
    server_info: m(z.tuple([]), ServerInfoSchema),
  },
  agent: {
    health_check: health,
    list_agents: m(z.tuple([]), z.array(AgentDescriptorSchema)),
    deliver: m(z.tuple([nonEmpty, DeliveryPayloadSchema]), DeliveryReceiptSchema),
    wake: m(z.tuple([nonEmpty], WakeOptsSchema.optional()), WakeReceiptSchema),
    request_response: m(z.tuple([nonEmpty, DeliveryPayloadSchema, RequestResponseOptsSchema]), AgentResponseSchema),
    agent_status: m(z.tuple([nonEmpty]), AgentStatusSchema),
  },
  "skill-store": {
    health_check: health,
    get: m(z.tuple([nonEmpty]), SkillRecordSchema.nullable()),
    write: m(z.tuple([nonEmpty, z.string()]), z.union([z.undefined(), z.null()])),
    list: m(z.tuple([]), z.array(z.string())),
    delete: m(z.tuple([nonEmpty]), z.boolean()),
  },
  adapter: {
    health_check: health,
    manifest: m(z.tuple([]), AdapterManifestSchema),
    detect: m(z.tuple([ClientProbeSchema, AdapterEnvSchema]), DetectResultSchema),
    doctor: m(z.tuple([AdapterEnvSchema]), DoctorResultSchema),
    normalizeHook: m(z.tuple([json, z.strictObject({ event: z.string().nullable() })]), NormalizedEventSchema),
    renderContext: m(z.tuple([RenderInputSchema, RenderOptionsSchema]), RenderResultSchema),
    planInstall: m(z.tuple([AdapterEnvSchema]), InstallPlanSchema),
    trustHooks: m(z.tuple([AdapterEnvSchema]), TrustResultSchema),
    untrustHooks: m(z.tuple([AdapterEnvSchema, z.array(nonEmpty).max(1000)]), z.array(z.string())),
    denyOutcome: m(z.tuple([z.string()], NormalizedEventSchema.nullable().optional()), HookOutcomeSchema),
    injectOutcome: m(z.tuple([z.string()], NormalizedEventSchema.nullable().optional()), HookOutcomeSchema),
    ...Object.fromEntries(
      ["guardRead", "guardWrite", "guardShell"].map((g) => [
        g,
        m(z.tuple([NormalizedEventSchema]), GuardDecisionSchema),
      ]),
    ),
    ...Object.fromEntries(
      ["startSession", "resumeSession", "endSession", "heartbeat", "mapChildSession"].map((l) => [
        l,
        m(z.tuple([NormalizedEventSchema]), json),
      ]),
    ),
    offerMessage: m(z.tuple([PeerMessageSchema]), json),
    routeReply: m(z.tuple([PeerMessageSchema]), json),
  },
} satisfies Readonly<Record<Kind, Readonly<Record<string, MethodSchema>>>>;

/** The schema of one method, or undefined for a method the table does not describe. */
export function methodSchema(kind: Kind, method: string): MethodSchema | undefined {
  const table: Readonly<Record<string, MethodSchema>> = CONTRACT_SCHEMAS[kind];
  return Object.hasOwn(table, method) ? table[method] : undefined;
}
