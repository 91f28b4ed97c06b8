/**
 * The database layout. Bump SCHEMA_VERSION (PRAGMA user_version) with a migration step when it
 * changes; a file written by a newer version is refused rather than silently misread.
 */
import type BetterSqlite3 from "better-sqlite3";

export const SCHEMA_VERSION = 1;

// `seq` is the rowid the FTS index points at; `id` is the portable id callers see.
// Curated PortableMemory fields are columns (arrays as JSON text); everything else is `metadata`.
const DDL = `
CREATE TABLE IF NOT EXISTS memories (
  seq            INTEGER PRIMARY KEY,
  id             TEXT    NOT NULL UNIQUE,
  summary        TEXT    NOT NULL,
  detail         TEXT,
  thread_status  TEXT,
  pinned         INTEGER,
  confidence     REAL,
  domain_tags    TEXT,
  payload_type   TEXT,
  knowledge_type TEXT,
  recipients     TEXT,
  expires_at     REAL,
  created_at     REAL    NOT NULL,
  updated_at     REAL    NOT NULL,
  agent_id       TEXT,
  vault          TEXT,
  metadata       TEXT
);
CREATE INDEX IF NOT EXISTS memories_created_at ON memories (created_at);
CREATE INDEX IF NOT EXISTS memories_agent_id ON memories (agent_id);
CREATE INDEX IF NOT EXISTS memories_vault ON memories (vault);

CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
  summary, detail, domain_tags,
  content = 'memories', content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

-- External-content FTS: these triggers are the only writers of the index. Writes use
-- INSERT ... ON CONFLICT DO UPDATE (never REPLACE, which would skip the delete trigger).
CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts (rowid, summary, detail, domain_tags)
  VALUES (new.seq, new.summary, new.detail, new.domain_tags);
END;
CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, detail, domain_tags)
  VALUES ('delete', old.seq, old.summary, old.detail, old.domain_tags);
END;
CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE ON memories BEGIN
  INSERT INTO memories_fts (memories_fts, rowid, summary, detail, domain_tags)
  VALUES ('delete', old.seq, old.summary, old.detail, old.domain_tags);
  INSERT INTO memories_fts (rowid, summary, detail, domain_tags)
  VALUES (new.seq, new.summary, new.detail, new.domain_tags);
END;
`;

export function migrate(db: BetterSqlite3.Database): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new Error(
      `the memory database was written by a newer sqlite-memory (schema ${version}; this plugin knows ${SCHEMA_VERSION}); upgrade the plugin`,
    );
  }
  if (version === SCHEMA_VERSION) return;
  db.transaction(() => {
    db.exec(DDL);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
