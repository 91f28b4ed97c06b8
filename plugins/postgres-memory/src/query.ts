/**
 * QueryFilters -> one parameterised SQL statement. User text never becomes tsquery syntax: each
 * whitespace-separated chunk goes through plainto_tsquery() as a bound parameter, and the chunks
 * are joined with || (match "any", the default) or && ("all"), so operators, quotes and
 * parentheses are searched for as words and can never cause a syntax error. Every value is a
 * parameter; the only identifiers (table, text search config) come from the validated config.
 */
import type { QueryFilters } from "patchbay/plugin";
import { COLUMNS } from "./records.js";

const MAX_TERMS = 64;
const STRING_FILTERS = ["agent_id", "vault", "thread_status", "payload_type", "knowledge_type"] as const;

export interface BuiltQuery {
  text: string;
  values: unknown[];
}

function fail(message: string): never {
  throw new Error(`query(filters): ${message}`);
}

/** The search chunks of `text`: no control characters, at least one letter or digit each, deduplicated. */
export function terms(text: string): string[] {
  const seen = new Set<string>();
  for (const chunk of text.replace(/\p{Cc}/gu, " ").split(/\s+/u)) {
    if (!/[\p{L}\p{N}]/u.test(chunk)) continue;
    seen.add(chunk);
    if (seen.size >= MAX_TERMS) break;
  }
  return [...seen];
}

export function buildQuery(
  table: string,
  language: string,
  filters: QueryFilters,
  now: number,
): BuiltQuery | "no-terms" {
  const values: unknown[] = [];
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const where: string[] = [];
  for (const key of STRING_FILTERS) {
    const value = filters[key];
    if (value == null) continue;
    if (typeof value !== "string") fail(`${key} must be a string`);
    where.push(`m.${key} = ${param(value)}`);
  }
  if (filters.pinned != null) {
    if (typeof filters.pinned !== "boolean") fail("pinned must be a boolean");
    where.push(filters.pinned ? "m.pinned IS TRUE" : "m.pinned IS NOT TRUE");
  }
  if (filters.domain_tag != null) {
    // A string: the record carries that tag. An array: the record carries every tag listed.
    const tags = typeof filters.domain_tag === "string" ? [filters.domain_tag] : filters.domain_tag;
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === "string"))
      fail("domain_tag must be a string or an array of strings");
    where.push(`m.domain_tags @> ${param(tags)}::text[]`);
  }
  if (filters.include_expired != null && typeof filters.include_expired !== "boolean")
    fail("include_expired must be a boolean");
  if (filters.include_expired !== true) where.push(`(m.expires_at IS NULL OR m.expires_at > ${param(now)})`);
  const match = filters.match ?? "any";
  if (match !== "any" && match !== "all") fail(`match must be "any" or "all"`);

  const cols = COLUMNS.map((c) => `m.${c}`).join(", ");
  const t = `"${table}"`;
  const text = typeof filters.query === "string" ? filters.query : fail("query must be a string");
  if (text.trim() === "") {
    const sql = `SELECT ${cols} FROM ${t} m WHERE ${where.join(" AND ") || "TRUE"} ORDER BY m.created_at DESC, m.seq DESC LIMIT ${param(filters.limit)}`;
    return { text: sql, values };
  }
  const chunks = terms(text);
  if (chunks.length === 0) return "no-terms";
  const cfg = `'${language}'::regconfig`;
  const tsquery = chunks.map((c) => `plainto_tsquery(${cfg}, ${param(c)})`).join(match === "all" ? " && " : " || ");
  where.unshift("m.tsv @@ q.q");
  const sql =
    `WITH q AS (SELECT (${tsquery}) AS q) ` +
    `SELECT ${cols}, ts_rank_cd(m.tsv, q.q) AS rank FROM ${t} m, q WHERE ${where.join(" AND ")} ` +
    `ORDER BY rank DESC, m.created_at DESC, m.seq DESC LIMIT ${param(filters.limit)}`;
  return { text: sql, values };
}
