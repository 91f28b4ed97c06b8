/**
 * The table. Several hosts may share one database and start at once, so the migration runs in
 * one transaction under an advisory lock keyed on the table name: exactly one creates, the others
 * wait and find it done. The search vector is a generated column over summary, tags and detail
 * (weights A, B, C) with a GIN index; `tags_text` exists because array_to_string is not
 * immutable and a generated column may only use immutable functions.
 */
import type pg from "pg";

export const SCHEMA_VERSION = 1;

export function ddl(table: string, language: string): string {
  const t = `"${table}"`;
  const cfg = `'${language}'::regconfig`;
  return `
CREATE TABLE IF NOT EXISTS ${t} (
  seq            bigserial PRIMARY KEY,
  id             text NOT NULL UNIQUE,
  summary        text NOT NULL,
  detail         text,
  thread_status  text,
  pinned         boolean,
  confidence     double precision,
  domain_tags    text[],
  tags_text      text,
  payload_type   text,
  knowledge_type text,
  recipients     text[],
  expires_at     double precision,
  created_at     double precision NOT NULL,
  updated_at     double precision NOT NULL,
  agent_id       text,
  vault          text,
  metadata       jsonb,
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector(${cfg}, coalesce(summary, '')), 'A') ||
    setweight(to_tsvector(${cfg}, coalesce(tags_text, '')), 'B') ||
    setweight(to_tsvector(${cfg}, coalesce(detail, '')), 'C')
  ) STORED
);
CREATE INDEX IF NOT EXISTS "${table}_tsv" ON ${t} USING gin (tsv);
CREATE INDEX IF NOT EXISTS "${table}_created_at" ON ${t} (created_at);
CREATE INDEX IF NOT EXISTS "${table}_agent_id" ON ${t} (agent_id);
CREATE INDEX IF NOT EXISTS "${table}_vault" ON ${t} (vault);
COMMENT ON TABLE ${t} IS 'patchbay postgres-memory schema ${SCHEMA_VERSION}';
`;
}

export async function migrate(pool: pg.Pool, table: string, language: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`patchbay-memory:${table}`]);
    // Fails with a clear message when the text search configuration does not exist.
    await client.query("SELECT $1::regconfig", [language]);
    const found = await client.query("SELECT obj_description(to_regclass($1), 'pg_class') AS comment", [`"${table}"`]);
    const comment = found.rows[0]?.comment as string | null | undefined;
    const version = comment ? Number(/schema (\d+)/.exec(comment)?.[1] ?? 0) : 0;
    if (version > SCHEMA_VERSION)
      throw new Error(
        `table "${table}" was written by a newer postgres-memory (schema ${version}; this plugin knows ${SCHEMA_VERSION})`,
      );
    if (version < SCHEMA_VERSION) await client.query(ddl(table, language));
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
