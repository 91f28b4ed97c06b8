/**
 * PortableMemory <-> row parameters. Seed 001's rule shapes this file: a curated field lives at
 * the top level only, never also in `metadata`, so a write hoists curated keys out of `metadata`
 * (the top-level value wins) and a read never puts them back. A wrongly typed curated field is
 * refused with its name, never coerced or dropped.
 */
import {
  CURATED_MEMORY_FIELDS,
  isCuratedMemoryField,
  type CuratedMemoryField,
  type MemoryWrite,
  type PortableMemory,
} from "patchbay/plugin";

type Curated = CuratedMemoryField;

const CORE = new Set(["id", "summary", "detail", "score", "metadata"]);
const MAX_ID_LENGTH = 200;

const isString = (v: unknown) => typeof v === "string";
const isNumber = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const isStrings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === "string");

const CHECKS: Record<Curated, [(v: unknown) => boolean, string]> = {
  thread_status: [isString, "a string"],
  pinned: [(v) => typeof v === "boolean", "a boolean"],
  confidence: [isNumber, "a finite number"],
  domain_tags: [isStrings, "an array of strings"],
  payload_type: [isString, "a string"],
  knowledge_type: [isString, "a string"],
  recipients: [isStrings, "an array of strings"],
  expires_at: [isNumber, "a finite number (unix ms)"],
  created_at: [isNumber, "a finite number (unix ms)"],
  agent_id: [isString, "a string"],
  vault: [isString, "a string"],
};

/** The stored columns, in the order of COLUMNS. */
export interface RowValues {
  id: string;
  summary: string;
  detail: string | null;
  curated: Partial<Record<Curated, unknown>>;
  metadata: Record<string, unknown> | null;
}

export const COLUMNS = [
  "id",
  "summary",
  "detail",
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
  "metadata",
] as const;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function toRow(record: MemoryWrite, newId: () => string): RowValues {
  if (!isPlainObject(record)) throw new Error("write(record): record must be an object");
  if (typeof record.summary !== "string") throw new Error("write(record): summary must be a string");
  if (record.detail != null && typeof record.detail !== "string")
    throw new Error("write(record): detail must be a string");
  if (record.metadata != null && !isPlainObject(record.metadata))
    throw new Error("write(record): metadata must be an object");
  const id = record.id ?? newId();
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID_LENGTH)
    throw new Error(`write(record): id must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);

  const metadata: Record<string, unknown> = { ...(record.metadata ?? {}) };
  const curated: Partial<Record<Curated, unknown>> = {};
  for (const field of CURATED_MEMORY_FIELDS) {
    const value = record[field] ?? metadata[field];
    delete metadata[field];
    if (value == null) continue;
    const [check, expected] = CHECKS[field];
    if (!check(value)) throw new Error(`write(record): ${field} must be ${expected}`);
    curated[field] = value;
  }
  // Unknown top-level keys are substrate-specific: they belong in metadata.
  for (const [key, value] of Object.entries(record)) {
    if (!CORE.has(key) && !isCuratedMemoryField(key) && value !== undefined) metadata[key] = value;
  }
  return {
    id,
    summary: record.summary,
    detail: (record.detail as string | undefined) ?? null,
    curated,
    metadata: Object.keys(metadata).length ? metadata : null,
  };
}

/** A row as selected (COLUMNS, plus `rank` from a search). */
export type StoredRow = Record<(typeof COLUMNS)[number], unknown> & { rank?: number };

export function fromRow(row: StoredRow): PortableMemory {
  const out: PortableMemory = { id: row.id as string, summary: row.summary as string };
  if (row.detail != null) out.detail = row.detail as string;
  if (row.rank != null) out.score = Number(row.rank);
  for (const field of CURATED_MEMORY_FIELDS) {
    const value = row[field];
    if (value != null) (out as unknown as Record<string, unknown>)[field] = value;
  }
  if (isPlainObject(row.metadata)) {
    const metadata = { ...row.metadata };
    // Rows written by other tools: never hand out a duplicated curated key.
    for (const field of CURATED_MEMORY_FIELDS) delete metadata[field];
    if (Object.keys(metadata).length > 0) out.metadata = metadata;
  }
  return out;
}
