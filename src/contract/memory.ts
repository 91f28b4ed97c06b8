/**
 * The curated-field rule of PortableMemory, declared once: each curated field lives at the top
 * level of a record, never also inside `metadata`. The zod schema (schemas.ts) types each field,
 * the guard refuses a result that duplicates one into metadata, the memory kit and every memory
 * plugin read the list from here through `patchbay/plugin`. Zod-free, so a plugin pays nothing.
 */

export const CURATED_MEMORY_FIELDS = [
  "thread_status",
  "pinned",
  "confidence",
  "domain_tags",
  "payload_type",
  "knowledge_type",
  "recipients",
  "expires_at",
  "created_at",
  "agent_id",
  "vault",
] as const;

export type CuratedMemoryField = (typeof CURATED_MEMORY_FIELDS)[number];

const CURATED = new Set<string>(CURATED_MEMORY_FIELDS);

export function isCuratedMemoryField(key: string): key is CuratedMemoryField {
  return CURATED.has(key);
}

/** The first curated field a metadata bag repeats (the guard refuses such a record), or undefined. */
export function curatedFieldInMetadata(
  metadata: Record<string, unknown> | null | undefined,
): CuratedMemoryField | undefined {
  if (!metadata) return undefined;
  return CURATED_MEMORY_FIELDS.find((f) => Object.hasOwn(metadata, f));
}

/**
 * A record as a store should keep it: curated keys a writer put in `metadata` moved to the top
 * level (a top-level value wins) and gone from `metadata`. Returns the record itself when there
 * is nothing to move.
 */
export function hoistCuratedFields<T extends { metadata?: Record<string, unknown> }>(record: T): T {
  const metadata = record.metadata;
  if (!metadata || curatedFieldInMetadata(metadata) === undefined) return record;
  const rest: Record<string, unknown> = { ...metadata };
  const lifted: Record<string, unknown> = {};
  for (const field of CURATED_MEMORY_FIELDS) {
    if (!Object.hasOwn(rest, field)) continue;
    if ((record as Record<string, unknown>)[field] === undefined) lifted[field] = rest[field];
    delete rest[field];
  }
  return { ...record, ...lifted, metadata: rest };
}
