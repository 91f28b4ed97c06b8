/**
 * Run-time schemas of every contract method: arguments (checked before a call crosses the
 * boundary) and results (checked when it comes back), in one table, used only by guard/guard.ts,
 * so nothing is validated twice. The table is the single declaration every contract form derives
 * from (types via drift.ts, fast and wire checks via the property test); the shapes it is built
 * from are schemas/*.ts, one file per contract.
 */
import { z } from "zod";
import type { Kind } from "./kinds.js";
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
import {
  AgentDescriptorSchema,
  AgentResponseSchema,
  AgentStatusSchema,
  DeliveryPayloadSchema,
  DeliveryReceiptSchema,
  RequestResponseOptsSchema,
  WakeOptsSchema,
  WakeReceiptSchema,
} from "./schemas/agent.js";
import {
  GetPromptResultSchema,
  NothingSchema,
  PromptSchema,
  ReadResourceResultSchema,
  ResourceSchema,
  ResourceTemplateSchema,
  ServerInfoSchema,
  SubscriptionUriSchema,
  ToolDescriptorSchema,
} from "./schemas/mcp.js";
import { EmbeddingsSchema, RunOptionsSchema } from "./schemas/model.js";
import {
  MemoryWriteResultSchema,
  MemoryWriteSchema,
  PortableMemorySchema,
  QueryFiltersSchema,
  SkillRecordSchema,
} from "./schemas/stores.js";

const json = z.unknown();
const nonEmpty = z.string().min(1);

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
