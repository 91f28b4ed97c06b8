/**
 * The records of the two stores: memory-store (PortableMemory, the query filters, a write and its
 * answer) and skill-store (a skill record). Loose objects: a store may return its substrate's own
 * fields beyond the seed's; only the seed's are typed here.
 */
import { z } from "zod";

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

export const SkillRecordSchema = z.looseObject({ name: nonEmpty, body: z.string(), updated_at: z.number().optional() });
