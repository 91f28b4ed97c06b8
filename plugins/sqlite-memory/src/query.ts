/**
 * QueryFilters -> SQL. User text never reaches FTS5 syntax: every whitespace-separated chunk
 * becomes one double-quoted FTS5 string (quotes doubled), so operators, column filters, `*`,
 * `NEAR`, `-` and parentheses are searched for as text and can never cause a syntax error.
 * Unknown filter keys are refused rather than silently ignored (a dropped filter returns
 * records the caller meant to exclude).
 */
import type { QueryFilters } from "patchbay/plugin";

/** Past this many terms a query is noise; bounding it keeps one call from building a huge MATCH. */
const MAX_TERMS = 64;

export const SUPPORTED_FILTERS = [
  "query",
  "limit",
  "mode",
  "match",
  "domain_tag",
  "agent_id",
  "vault",
  "thread_status",
  "pinned",
  "payload_type",
  "knowledge_type",
  "include_expired",
] as const;
const SUPPORTED = new Set<string>(SUPPORTED_FILTERS);

/** FTS5 column weights for bm25(): summary, detail, domain_tags. */
const WEIGHTS = "2.0, 1.0, 1.5";

export interface BuiltQuery {
  sql: string;
  params: Record<string, unknown>;
}

/** The quoted FTS5 terms of `text` (empty when it holds nothing searchable). */
export function ftsTerms(text: string): string[] {
  const seen = new Set<string>();
  // Control characters are never part of a token, and a NUL would end FTS5's C string early.
  for (const chunk of text.replace(/\p{Cc}/gu, " ").split(/\s+/u)) {
    // A chunk with no letter or digit would tokenize to nothing; skip it rather than send "".
    if (!/[\p{L}\p{N}]/u.test(chunk)) continue;
    seen.add(`"${chunk.replaceAll('"', '""')}"`);
    if (seen.size >= MAX_TERMS) break;
  }
  return [...seen];
}

function fail(message: string): never {
  throw new Error(`query(filters): ${message}`);
}

function expectString(filters: QueryFilters, key: string): string | undefined {
  const value = filters[key];
  if (value == null) return undefined;
  if (typeof value !== "string") fail(`${key} must be a string`);
  return value;
}

export function buildQuery(filters: QueryFilters, now: number): BuiltQuery | "no-terms" {
  if (typeof filters !== "object" || filters === null) fail("filters must be an object");
  const unknown = Object.keys(filters).filter((k) => !SUPPORTED.has(k) && filters[k] !== undefined);
  if (unknown.length > 0)
    fail(`unsupported filter ${unknown.map((k) => `"${k}"`).join(", ")}; supported: ${SUPPORTED_FILTERS.join(", ")}`);

  const mode = filters.mode ?? "fts";
  if (mode !== "fts") fail(`mode "${String(mode)}" is not supported by sqlite-memory; use "fts"`);
  const limit = filters.limit;
  if (!Number.isInteger(limit) || limit < 1) fail("limit must be a positive integer");
  const text = filters.query ?? "";
  if (typeof text !== "string") fail("query must be a string");
  const match = filters.match ?? "any";
  if (match !== "any" && match !== "all") fail(`match must be "any" or "all"`);

  const where: string[] = [];
  const params: Record<string, unknown> = { limit, now };

  for (const key of ["agent_id", "vault", "thread_status", "payload_type", "knowledge_type"] as const) {
    const value = expectString(filters, key);
    if (value === undefined) continue;
    where.push(`m.${key} = @${key}`);
    params[key] = value;
  }
  if (filters.pinned != null) {
    if (typeof filters.pinned !== "boolean") fail("pinned must be a boolean");
    where.push(filters.pinned ? "m.pinned = 1" : "(m.pinned IS NULL OR m.pinned = 0)");
  }
  const tag = filters.domain_tag;
  if (tag != null) {
    // A string: the record carries that tag. An array: the record carries every tag listed.
    const tags = typeof tag === "string" ? [tag] : tag;
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === "string"))
      fail("domain_tag must be a string or an array of strings");
    tags.forEach((t, i) => {
      where.push(`EXISTS (SELECT 1 FROM json_each(m.domain_tags) WHERE json_each.value = @tag${i})`);
      params[`tag${i}`] = t;
    });
  }
  if (filters.include_expired != null && typeof filters.include_expired !== "boolean")
    fail("include_expired must be a boolean");
  if (filters.include_expired !== true) where.push("(m.expires_at IS NULL OR m.expires_at > @now)");

  const filterSql = where.length > 0 ? where.join(" AND ") : "1";

  if (text.trim() === "") {
    // No search text: the most recent records that pass the filters.
    return {
      sql: `SELECT m.* FROM memories m WHERE ${filterSql} ORDER BY m.created_at DESC, m.seq DESC LIMIT @limit`,
      params,
    };
  }
  const terms = ftsTerms(text);
  if (terms.length === 0) return "no-terms";
  params.match = terms.join(match === "all" ? " AND " : " OR ");
  return {
    sql:
      `SELECT m.*, bm25(memories_fts, ${WEIGHTS}) AS rank FROM memories_fts ` +
      `JOIN memories m ON m.seq = memories_fts.rowid ` +
      `WHERE memories_fts MATCH @match AND ${filterSql} ` +
      `ORDER BY rank, m.created_at DESC LIMIT @limit`,
    params,
  };
}
