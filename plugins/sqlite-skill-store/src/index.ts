/**
 * sqlite-skill-store: each skill is one row of `skills` in a SQLite file. Skill records are
 * long-lived infrastructure (seed 001), so a write is one statement in WAL mode: a reader sees the
 * old body or the new one, never half; rewriting keeps the skill's created_at. The file opens
 * lazily, so a bad path shows up as health_check() === false rather than a plugin that fails
 * to load. Names reach this plugin already checked by the host (no traversal, separators or
 * control characters); here they are only ever bound parameters, never paths.
 */
import { mkdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import Database from "better-sqlite3";
import { definePlugin, z } from "patchbay/plugin";
import type { SkillRecord, SkillStore } from "patchbay/plugin";

const SCHEMA_VERSION = 1;
const BUSY_TIMEOUT_MS = 5_000;

const DDL = `
CREATE TABLE IF NOT EXISTS skills (
  name       TEXT PRIMARY KEY,
  body       TEXT NOT NULL,
  created_at REAL NOT NULL,
  updated_at REAL NOT NULL
) WITHOUT ROWID;
`;

const config = z.strictObject({
  path: z.string().min(1).meta({
    path: true,
    description:
      'The SQLite database file (its folder is created); ":memory:" keeps skills for the life of the instance only.',
  }),
});

interface Row {
  name: string;
  body: string;
  created_at: number;
  updated_at: number;
}

export default definePlugin({
  kind: "skill-store",
  config,
  create(cfg, ctx): SkillStore {
    // The host resolves path fields against the connectors.json folder, so ":memory:" may arrive as "/dir/:memory:".
    const inMemory = basename(cfg.path) === ":memory:";
    let db: Database.Database | null = null;
    let closed = false;

    function open(): Database.Database {
      if (closed) throw new Error("sqlite-skill-store: the store is closed");
      if (db) return db;
      let opened: Database.Database | null = null;
      try {
        if (!inMemory) mkdirSync(dirname(cfg.path), { recursive: true });
        opened = new Database(inMemory ? ":memory:" : cfg.path);
        if (!inMemory) opened.pragma("journal_mode = WAL");
        opened.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        const version = opened.pragma("user_version", { simple: true }) as number;
        if (version > SCHEMA_VERSION)
          throw new Error(
            `the file was written by a newer sqlite-skill-store (schema ${version}; this plugin knows ${SCHEMA_VERSION})`,
          );
        if (version < SCHEMA_VERSION) {
          const handle = opened;
          handle
            .transaction(() => {
              handle.exec(DDL);
              handle.pragma(`user_version = ${SCHEMA_VERSION}`);
            })
            .immediate();
        }
      } catch (err) {
        opened?.close();
        throw new Error(
          `sqlite-skill-store: cannot open ${inMemory ? ":memory:" : cfg.path}: ${(err as Error).message}`,
          { cause: err },
        );
      }
      db = opened;
      return db;
    }

    return {
      async health_check() {
        try {
          return typeof (open().prepare("SELECT count(*) AS n FROM skills").get() as { n: number }).n === "number";
        } catch (err) {
          ctx.log.warn("health check failed", { error: (err as Error).message });
          return false;
        }
      },

      async get(name: string): Promise<SkillRecord | null> {
        const row = open().prepare("SELECT name, body, created_at, updated_at FROM skills WHERE name = ?").get(name) as
          | Row
          | undefined;
        return row ? { name: row.name, body: row.body, created_at: row.created_at, updated_at: row.updated_at } : null;
      },

      async write(name: string, body: string): Promise<void> {
        if (typeof body !== "string") throw new Error("write(name, body): body must be a string");
        const now = Date.now();
        open()
          .prepare(`INSERT INTO skills (name, body, created_at, updated_at) VALUES (@name, @body, @now, @now)
                    ON CONFLICT (name) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`)
          .run({ name, body, now });
      },

      async list(): Promise<string[]> {
        return (open().prepare("SELECT name FROM skills ORDER BY name").all() as { name: string }[]).map((r) => r.name);
      },

      async delete(name: string): Promise<boolean> {
        return open().prepare("DELETE FROM skills WHERE name = ?").run(name).changes > 0;
      },

      async close() {
        closed = true;
        const handle = db;
        db = null;
        handle?.close();
      },
    };
  },
});
