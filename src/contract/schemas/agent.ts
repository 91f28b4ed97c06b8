/**
 * The agent contract's shapes: a delivery (its meta and provenance, augment or template), its
 * receipt, the agents a connector lists, wake and request/response options and answers.
 */
import { z } from "zod";

const nonEmpty = z.string().min(1);

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
