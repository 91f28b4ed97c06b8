/**
 * sqlite-memory: PortableMemory records in one SQLite file, searched with FTS5 (bm25 ranking).
 * The database opens lazily on first use, so a bad path shows up as health_check() === false
 * (and a clear error on calls) instead of a plugin that fails to load.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import Database from "better-sqlite3";
import { definePlugin, z } from "patchbay/plugin";
import type { MemoryStore, MemoryWrite, PortableMemory, QueryFilters } from "patchbay/plugin";
import { buildQuery } from "./query.js";
import { fromRow, toRow, type StoredRow } from "./records.js";
import { migrate } from "./schema.js";

const BUSY_TIMEOUT_MS = 5_000;

const UPSERT = `
  INSERT INTO memories (id, summary, detail, thread_status, pinned, confidence, domain_tags, payload_type,
                        knowledge_type, recipients, expires_at, created_at, updated_at, agent_id, vault, metadata)
  VALUES (@id, @summary, @detail, @thread_status, @pinned, @confidence, @domain_tags, @payload_type,
          @knowledge_type, @recipients, @expires_at, @created_at, @updated_at, @agent_id, @vault, @metadata)
  ON CONFLICT (id) DO UPDATE SET
    summary = excluded.summary, detail = excluded.detail, thread_status = excluded.thread_status,
    pinned = excluded.pinned, confidence = excluded.confidence, domain_tags = excluded.domain_tags,
    payload_type = excluded.payload_type, knowledge_type = excluded.knowledge_type,
    recipients = excluded.recipients, expires_at = excluded.expires_at, created_at = excluded.created_at,
    updated_at = excluded.updated_at, agent_id = excluded.agent_id, vault = excluded.vault,
    metadata = excluded.metadata`;

interface Handle {
  db: Database.Database;
  upsert: Database.Statement;
  byId: Database.Statement;
}

const config = z.strictObject({
  path: z.string().min(1).meta({
    path: true,
    description:
      'The SQLite database file (its folder is created); ":memory:" keeps everything in memory for the life of the instance.',
  }),
});

/** The host resolves path fields against the connectors.json folder, so ":memory:" may arrive as "/dir/:memory:". */
function isMemoryPath(path: string): boolean {
  return path === ":memory:" || basename(path) === ":memory:";
}

export default definePlugin({
  kind: "memory-store",
  config,
  create(cfg, ctx): MemoryStore {
    const inMemory = isMemoryPath(cfg.path);
    let handle: Handle | null = null;
    let closed = false;

    function open(): Handle {
      if (closed) throw new Error("sqlite-memory: the store is closed");
      if (handle) return handle;
      let opened: Database.Database | null = null;
      try {
        if (inMemory) {
          opened = new Database(":memory:");
        } else {
          mkdirSync(dirname(cfg.path), { recursive: true });
          opened = new Database(cfg.path);
          // WAL: readers never block the writer; NORMAL sync is durable against app crashes.
          opened.pragma("journal_mode = WAL");
          opened.pragma("synchronous = NORMAL");
        }
        opened.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        migrate(opened);
      } catch (err) {
        opened?.close();
        throw new Error(`sqlite-memory: cannot open ${inMemory ? ":memory:" : cfg.path}: ${(err as Error).message}`, {
          cause: err,
        });
      }
      handle = {
        db: opened,
        upsert: opened.prepare(UPSERT),
        byId: opened.prepare("SELECT * FROM memories WHERE id = ?"),
      };
      ctx.log.debug("database opened", { path: inMemory ? ":memory:" : cfg.path });
      return handle;
    }

    function readOne(id: string): StoredRow | undefined {
      return open().byId.get(id) as StoredRow | undefined;
    }

    return {
      async health_check() {
        try {
          const row = open()
            .db.prepare("SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH '\"patchbay\"'")
            .get() as { n: number } | undefined;
          return typeof row?.n === "number";
        } catch (err) {
          ctx.log.warn("health check failed", { error: (err as Error).message });
          return false;
        }
      },

      async query(filters: QueryFilters): Promise<PortableMemory[]> {
        const built = buildQuery(filters, Date.now());
        if (built === "no-terms") return [];
        const rows = open().db.prepare(built.sql).all(built.params) as StoredRow[];
        return rows.map(fromRow);
      },

      async write(record: MemoryWrite) {
        const row = toRow(record, randomUUID);
        const { db, upsert } = open();
        const now = Date.now();
        // Rewriting an id replaces the record but keeps its original created_at unless one is given.
        const createdAt = db
          .transaction(() => {
            const existing = row.created_at ?? readOne(row.id)?.created_at ?? now;
            upsert.run({ ...row, created_at: existing, updated_at: now });
            return existing;
          })
          .immediate();
        return { id: row.id, created_at: createdAt };
      },

      async get(id: string) {
        if (typeof id !== "string" || id.length === 0) throw new Error("get(id): id must be a non-empty string");
        const row = readOne(id);
        return row ? fromRow(row) : null;
      },

      async close() {
        closed = true;
        const current = handle;
        handle = null;
        current?.db.close();
      },
    };
  },
});
