/**
 * postgres-memory: the memory store to share between hosts. PortableMemory records live in one
 * PostgreSQL table, searched with full-text search (a generated tsvector column, GIN-indexed,
 * ranked by ts_rank_cd). The pool connects lazily and the table is created on first use, so an
 * unreachable server shows up as health_check() === false, never as a plugin that fails to load.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { definePlugin, z } from "patchbay/plugin";
import type { MemoryStore, MemoryWrite, PortableMemory, QueryFilters } from "patchbay/plugin";
import { buildQuery } from "./query.js";
import { COLUMNS, fromRow, toRow, type StoredRow } from "./records.js";
import { migrate } from "./schema.js";

const identifier = /^[a-z_][a-z0-9_]{0,62}$/;

const config = z.strictObject({
  connection_string: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "connection_string must be a postgres:// URL")
    .meta({
      secret: true,
      description: "postgres://user:password@host:port/database; a secret, scrubbed from every log and error.",
    }),
  table: z
    .string()
    .regex(identifier, "table must be a lower-case SQL identifier (letters, digits, _; at most 63)")
    .default("patchbay_memories")
    .meta({ description: "The table holding the records (created on first use, with its indexes)." }),
  text_search_config: z.string().regex(identifier).default("english").meta({
    description:
      "PostgreSQL text search configuration for stemming (english, simple, ...). Fixed when the table is created.",
  }),
  pool_max: z.number().int().min(1).max(100).default(4).meta({ description: "Connections in the pool." }),
  connect_timeout_ms: z
    .number()
    .int()
    .positive()
    .default(3_000)
    .meta({ description: "How long opening a connection may take." }),
  statement_timeout_ms: z
    .number()
    .int()
    .positive()
    .default(15_000)
    .meta({ description: "The server cancels a statement that runs longer." }),
});

export default definePlugin({
  kind: "memory-store",
  config,
  create(cfg, ctx): MemoryStore {
    const pool = new pg.Pool({
      connectionString: cfg.connection_string,
      max: cfg.pool_max,
      connectionTimeoutMillis: cfg.connect_timeout_ms,
      idleTimeoutMillis: 10_000,
      statement_timeout: cfg.statement_timeout_ms,
      application_name: `patchbay ${ctx.instance}`,
    });
    // An idle client losing its connection (server restart) must not crash the worker.
    pool.on("error", (err) => ctx.log.warn("idle connection lost", { error: err.message }));
    const table = `"${cfg.table}"`;
    let ready: Promise<void> | null = null;

    /** Creates the table once; a failure is not cached, the next call tries again. */
    function ensureTable(): Promise<void> {
      ready ??= migrate(pool, cfg.table, cfg.text_search_config).catch((err) => {
        ready = null;
        throw new Error(`postgres-memory: cannot prepare table ${table}: ${(err as Error).message}`, { cause: err });
      });
      return ready;
    }

    async function run<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<T>> {
      await ensureTable();
      return pool.query<T>(text, values);
    }

    return {
      async health_check() {
        const budget = Math.min(ctx.remainingMs() - 50, cfg.connect_timeout_ms + 1_000);
        if (!(budget > 0)) return false;
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<string>(
          (resolve) => (timer = setTimeout(() => resolve(`no answer within ${Math.round(budget)} ms`), budget)),
        );
        const probe = run(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} LIMIT 1) s`, []).then(
          () => null,
          (err: Error) => err.message,
        );
        const problem = await Promise.race([probe, late]).finally(() => clearTimeout(timer));
        if (problem) ctx.log.warn("health check failed", { error: problem });
        return problem === null;
      },

      async query(filters: QueryFilters): Promise<PortableMemory[]> {
        const built = buildQuery(cfg.table, cfg.text_search_config, filters, Date.now());
        if (built === "no-terms") return [];
        const result = await run<StoredRow>(built.text, built.values);
        return result.rows.map(fromRow);
      },

      async write(record: MemoryWrite) {
        const row = toRow(record, randomUUID);
        const c = row.curated;
        const now = Date.now();
        const given = c.created_at !== undefined;
        const tags = (c.domain_tags as string[] | undefined) ?? null;
        // One statement: rewriting an id replaces the record but keeps its created_at unless one is given.
        const result = await run<{ created_at: number }>(
          `INSERT INTO ${table} (id, summary, detail, thread_status, pinned, confidence, domain_tags, tags_text, payload_type,
                                 knowledge_type, recipients, expires_at, created_at, updated_at, agent_id, vault, metadata)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
           ON CONFLICT (id) DO UPDATE SET
             summary = EXCLUDED.summary, detail = EXCLUDED.detail, thread_status = EXCLUDED.thread_status,
             pinned = EXCLUDED.pinned, confidence = EXCLUDED.confidence, domain_tags = EXCLUDED.domain_tags,
             tags_text = EXCLUDED.tags_text, payload_type = EXCLUDED.payload_type, knowledge_type = EXCLUDED.knowledge_type,
             recipients = EXCLUDED.recipients, expires_at = EXCLUDED.expires_at,
             created_at = CASE WHEN $18::boolean THEN EXCLUDED.created_at ELSE ${table}.created_at END,
             updated_at = EXCLUDED.updated_at, agent_id = EXCLUDED.agent_id, vault = EXCLUDED.vault, metadata = EXCLUDED.metadata
           RETURNING created_at`,
          [
            row.id,
            row.summary,
            row.detail,
            c.thread_status ?? null,
            c.pinned ?? null,
            c.confidence ?? null,
            tags,
            tags ? tags.join(" ") : null,
            c.payload_type ?? null,
            c.knowledge_type ?? null,
            c.recipients ?? null,
            c.expires_at ?? null,
            given ? c.created_at : now,
            now,
            c.agent_id ?? null,
            c.vault ?? null,
            row.metadata === null ? null : JSON.stringify(row.metadata),
            given,
          ],
        );
        return { id: row.id, created_at: Number(result.rows[0].created_at) };
      },

      async get(id: string) {
        const result = await run<StoredRow>(`SELECT ${COLUMNS.join(", ")} FROM ${table} WHERE id = $1`, [id]);
        return result.rows[0] ? fromRow(result.rows[0]) : null;
      },

      async close() {
        await pool.end();
      },
    };
  },
});
