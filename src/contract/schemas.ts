/**
 * Run-time schemas of every contract method: arguments (checked before a call crosses the
 * boundary) and results (checked when it comes back). One table, used only by rpc/guard.ts, so
 * nothing is validated twice.
 */
import { z } from "zod";
import type { Kind } from "./kinds.js";

const json = z.unknown();
const nonEmpty = z.string().min(1);

export const CURATED_MEMORY_FIELDS = [
  "thread_status", "pinned", "confidence", "domain_tags", "payload_type", "knowledge_type",
  "recipients", "expires_at", "created_at", "agent_id", "vault",
] as const;

export const PortableMemorySchema = z.looseObject({
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
});

export const QueryFiltersSchema = z.looseObject({
  query: z.string(),
  limit: z.number().int().positive().max(10_000),
  mode: nonEmpty,
});

export const MemoryWriteSchema = z.looseObject({ summary: z.string(), detail: z.string().optional(), id: nonEmpty.optional() });

export const ToolDescriptorSchema = z.looseObject({
  name: nonEmpty,
  description: z.string().optional(),
  inputSchema: z.record(z.string(), json).optional(),
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
  z.strictObject({ kind: z.literal("augment"), content: z.string(), format: z.enum(["text", "markdown"]).optional(), meta: DeliveryMetaSchema, ...ProvenanceShape }),
  z.strictObject({ kind: z.literal("template"), prompt: z.string(), meta: DeliveryMetaSchema, ...ProvenanceShape }),
]);

export const DeliveryReceiptSchema = z.looseObject({
  delivered_at: z.number(),
  delivery_id: z.string().optional(),
  delivery_skipped: z.boolean().optional(),
});

export const SkillRecordSchema = z.looseObject({ name: nonEmpty, body: z.string(), updated_at: z.number().optional() });

export interface MethodSchema {
  /** The positional arguments, as a tuple. */
  args: z.ZodType;
  result: z.ZodType;
}

const m = (args: z.ZodType, result: z.ZodType): MethodSchema => ({ args, result });
const health = m(z.tuple([]), z.boolean());

export const CONTRACT_SCHEMAS: Readonly<Record<Kind, Readonly<Record<string, MethodSchema>>>> = {
  "memory-store": {
    health_check: health,
    query: m(z.tuple([QueryFiltersSchema]), z.array(PortableMemorySchema)),
    write: m(z.tuple([MemoryWriteSchema]), z.looseObject({ id: nonEmpty, created_at: z.number() })),
    get: m(z.tuple([nonEmpty]), PortableMemorySchema.nullable()),
  },
  "local-model": {
    health_check: health,
    run: m(
      z.tuple([z.string()], z.strictObject({ model: z.string().optional(), max_tokens: z.number().int().positive().optional(), temperature: z.number().min(0).max(2).optional(), timeout_ms: z.number().int().positive().optional() }).optional()),
      z.string(),
    ),
    embed: m(z.tuple([z.array(z.string()).min(1)]), z.array(z.array(z.number()))),
  },
  mcp: {
    health_check: health,
    call: m(z.tuple([nonEmpty, z.record(z.string(), json)], z.record(z.string(), json).optional()), json),
    list_tools: m(z.tuple([]), z.array(ToolDescriptorSchema)),
  },
  agent: {
    health_check: health,
    list_agents: m(z.tuple([]), z.array(z.looseObject({ id: nonEmpty, name: z.string().optional(), description: z.string().optional() }))),
    deliver: m(z.tuple([nonEmpty, DeliveryPayloadSchema]), DeliveryReceiptSchema),
    wake: m(z.tuple([nonEmpty], z.record(z.string(), json).optional()), z.looseObject({ woke_at: z.number() })),
    request_response: m(
      z.tuple([nonEmpty, DeliveryPayloadSchema, z.looseObject({ correlation_id: nonEmpty, timeout_ms: z.number().int().positive().optional() })]),
      z.looseObject({ correlation_id: nonEmpty, content: z.string(), responded_at: z.number().optional() }),
    ),
    agent_status: m(z.tuple([nonEmpty]), z.looseObject({ agent_id: nonEmpty, state: z.string() })),
  },
  "skill-store": {
    health_check: health,
    get: m(z.tuple([nonEmpty]), SkillRecordSchema.nullable()),
    write: m(z.tuple([nonEmpty, z.string()]), z.unknown()),
    list: m(z.tuple([]), z.array(z.string())),
    delete: m(z.tuple([nonEmpty]), z.boolean()),
  },
  adapter: {
    health_check: health,
  },
};

/** The schema of one method, or undefined for a method the table does not describe (adapters). */
export function methodSchema(kind: Kind, method: string): MethodSchema | undefined {
  const table = CONTRACT_SCHEMAS[kind];
  return Object.hasOwn(table, method) ? table[method] : undefined;
}
