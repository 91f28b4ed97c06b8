/**
 * PortableMemory <-> row. The rule that shapes this file (seed 001, "Connector duplication"): a
 * curated field lives at the top level only, never also in `metadata`, so a write hoists curated
 * keys out of `metadata` and a read never puts them back there.
 */
import {
  CURATED_MEMORY_FIELDS,
  isCuratedMemoryField,
  type CuratedMemoryField,
  type MemoryWrite,
  type PortableMemory,
} from "patchbay/plugin";

type Curated = CuratedMemoryField;

/** Core fields handled on their own; `score` is computed by a query and never stored. */
const CORE_FIELDS = new Set(["id", "summary", "detail", "score", "metadata"]);

const MAX_ID_LENGTH = 200;

/** What one row holds, as bound to the SQL statements. */
export interface Row {
  id: string;
  summary: string;
  detail: string | null;
  thread_status: string | null;
  pinned: number | null;
  confidence: number | null;
  domain_tags: string | null;
  payload_type: string | null;
  knowledge_type: string | null;
  recipients: string | null;
  expires_at: number | null;
  created_at: number | null;
  agent_id: string | null;
  vault: string | null;
  metadata: string | null;
}

type Check = (value: unknown) => boolean;
const isString: Check = (v) => typeof v === "string";
const isNumber: Check = (v) => typeof v === "number" && Number.isFinite(v);
const isStringArray: Check = (v) => Array.isArray(v) && v.every((x) => typeof x === "string");

const CURATED_CHECKS: Record<Curated, [Check, string]> = {
  thread_status: [isString, "a string"],
  pinned: [(v) => typeof v === "boolean", "a boolean"],
  confidence: [isNumber, "a finite number"],
  domain_tags: [isStringArray, "an array of strings"],
  payload_type: [isString, "a string"],
  knowledge_type: [isString, "a string"],
  recipients: [isStringArray, "an array of strings"],
  expires_at: [isNumber, "a finite number (unix ms)"],
  created_at: [isNumber, "a finite number (unix ms)"],
  agent_id: [isString, "a string"],
  vault: [isString, "a string"],
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Turn a write request into a row. Throws a plain Error naming the field for anything it cannot
 * store faithfully (a wrong type is refused, never coerced or dropped).
 */
export function toRow(record: MemoryWrite, newId: () => string): Row {
  if (!isPlainObject(record)) throw new Error("write(record): record must be an object");
  if (typeof record.summary !== "string") throw new Error("write(record): summary must be a string");
  if (record.detail != null && typeof record.detail !== "string")
    throw new Error("write(record): detail must be a string");
  if (record.metadata != null && !isPlainObject(record.metadata))
    throw new Error("write(record): metadata must be an object");

  let id: string;
  if (record.id == null) id = newId();
  else if (typeof record.id !== "string" || record.id.length === 0 || record.id.length > MAX_ID_LENGTH) {
    throw new Error(`write(record): id must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  } else id = record.id;

  const metadata: Record<string, unknown> = { ...(record.metadata ?? {}) };
  const curated: Partial<Record<Curated, unknown>> = {};
  for (const field of CURATED_MEMORY_FIELDS) {
    const top = record[field];
    const nested = metadata[field];
    delete metadata[field];
    // The top-level value wins; a curated key found only in metadata is hoisted, never kept there.
    const value = top ?? nested;
    if (value == null) continue;
    const [check, expected] = CURATED_CHECKS[field];
    if (!check(value)) throw new Error(`write(record): ${field} must be ${expected}`);
    curated[field] = value;
  }
  // Unknown top-level keys are substrate-specific: they belong in metadata.
  for (const [key, value] of Object.entries(record)) {
    if (CORE_FIELDS.has(key) || isCuratedMemoryField(key) || value === undefined) continue;
    metadata[key] = value;
  }

  let metadataJson: string | null = null;
  if (Object.keys(metadata).length > 0) {
    try {
      metadataJson = JSON.stringify(metadata);
    } catch (err) {
      throw new Error(`write(record): metadata is not JSON-serialisable (${(err as Error).message})`);
    }
  }

  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
  return {
    id,
    summary: record.summary,
    detail: (record.detail as string | undefined) ?? null,
    thread_status: (curated.thread_status as string | undefined) ?? null,
    pinned: curated.pinned === undefined ? null : curated.pinned ? 1 : 0,
    confidence: (curated.confidence as number | undefined) ?? null,
    domain_tags: json(curated.domain_tags),
    payload_type: (curated.payload_type as string | undefined) ?? null,
    knowledge_type: (curated.knowledge_type as string | undefined) ?? null,
    recipients: json(curated.recipients),
    expires_at: (curated.expires_at as number | undefined) ?? null,
    created_at: (curated.created_at as number | undefined) ?? null,
    agent_id: (curated.agent_id as string | undefined) ?? null,
    vault: (curated.vault as string | undefined) ?? null,
    metadata: metadataJson,
  };
}

/** A stored row as read back (the columns of `memories`, plus `rank` from an FTS query). */
export interface StoredRow extends Omit<Row, "created_at"> {
  created_at: number;
  rank?: number;
}

function parseJson(text: string | null): unknown {
  if (text == null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Row -> PortableMemory: absent values are omitted (not undefined), arrays and metadata parsed. */
export function fromRow(row: StoredRow): PortableMemory {
  const out: PortableMemory = { id: row.id, summary: row.summary };
  if (row.detail != null) out.detail = row.detail;
  if (row.rank != null) out.score = -row.rank; // bm25 is lower-is-better; score is higher-is-better.
  if (row.thread_status != null) out.thread_status = row.thread_status;
  if (row.pinned != null) out.pinned = row.pinned === 1;
  if (row.confidence != null) out.confidence = row.confidence;
  const tags = parseJson(row.domain_tags);
  if (Array.isArray(tags)) out.domain_tags = tags as string[];
  if (row.payload_type != null) out.payload_type = row.payload_type;
  if (row.knowledge_type != null) out.knowledge_type = row.knowledge_type;
  const recipients = parseJson(row.recipients);
  if (Array.isArray(recipients)) out.recipients = recipients as string[];
  if (row.expires_at != null) out.expires_at = row.expires_at;
  out.created_at = row.created_at;
  if (row.agent_id != null) out.agent_id = row.agent_id;
  if (row.vault != null) out.vault = row.vault;
  const metadata = parseJson(row.metadata);
  if (isPlainObject(metadata) && Object.keys(metadata).length > 0) {
    // Defence in depth for rows written by other tools: never hand out a duplicated curated key.
    for (const field of CURATED_MEMORY_FIELDS) delete metadata[field];
    if (Object.keys(metadata).length > 0) out.metadata = metadata;
  }
  return out;
}
