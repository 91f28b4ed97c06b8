/**
 * The durable inbox behind next-turn delivery: one SQLite file (better-sqlite3) that the
 * adapter-inbox connector writes (record first: deliver() returns only after the row is on disk)
 * and the hook runner reads (offer on the client's next hook, then mark delivered only the ids
 * the adapter reports as rendered). Both sides use this one module, so the record format has a
 * single definition. better-sqlite3 is loaded on first open, so plugins that never open an inbox
 * never load the native module.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { PeerMessage } from "./contract.js";

export interface InboxDelivery {
  agentId: string;
  /** The host's dispatch_id: redelivering it to the same agent is a no-op that returns the same id. */
  dispatchId: string;
  from: string;
  type: string;
  subject: string | null;
  body: string;
  sentAt: number;
}

export interface StoredMessage extends PeerMessage {
  agentId: string;
  dispatchId: string;
  recordedAt: number;
  deliveredAt: number | null;
}

export interface InboxStore {
  readonly file: string;
  /** Records durably (synchronous=FULL, one transaction) and returns the message id. */
  record(delivery: InboxDelivery): { id: string; recordedAt: number; duplicate: boolean };
  /** Undelivered messages for an agent, oldest first. */
  pending(agentId: string, limit?: number): PeerMessage[];
  get(id: string): StoredMessage | null;
  /** Marks these ids delivered (only the agent's own, only once); returns how many changed. */
  markDelivered(agentId: string, ids: readonly string[], to: string): number;
  counts(agentId: string): { pending: number; delivered: number };
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS inbox_messages (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT NOT NULL UNIQUE,
  agent_id     TEXT NOT NULL,
  dispatch_id  TEXT NOT NULL,
  sender       TEXT NOT NULL,
  type         TEXT NOT NULL,
  subject      TEXT,
  body         TEXT NOT NULL,
  sent_at      INTEGER NOT NULL,
  recorded_at  INTEGER NOT NULL,
  delivered_at INTEGER,
  delivered_to TEXT,
  UNIQUE (agent_id, dispatch_id)
);
CREATE INDEX IF NOT EXISTS inbox_pending ON inbox_messages (agent_id, delivered_at, seq);
`;

interface Row {
  id: string;
  agent_id: string;
  dispatch_id: string;
  sender: string;
  type: string;
  subject: string | null;
  body: string;
  sent_at: number;
  recorded_at: number;
  delivered_at: number | null;
}

const toPeer = (r: Row): PeerMessage => ({
  id: r.id,
  from: r.sender,
  type: r.type,
  subject: r.subject,
  body: r.body,
  sentAt: r.sent_at,
});

let Database: typeof BetterSqlite3 | null = null;

export function openInboxStore(file: string, opts: { busyTimeoutMs?: number } = {}): InboxStore {
  Database ??= createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
  const resolved = path.resolve(file);
  mkdirSync(path.dirname(resolved), { recursive: true });
  const db = new Database(resolved);
  db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 2_000}`);
  // WAL lets the hook runner read while a serving host records; FULL makes a recorded row survive power loss.
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(SCHEMA);

  const insert =
    db.prepare(`INSERT INTO inbox_messages (id, agent_id, dispatch_id, sender, type, subject, body, sent_at, recorded_at)
    VALUES (@id, @agent_id, @dispatch_id, @sender, @type, @subject, @body, @sent_at, @recorded_at) ON CONFLICT (agent_id, dispatch_id) DO NOTHING`);
  const byDispatch = db.prepare("SELECT id, recorded_at FROM inbox_messages WHERE agent_id = ? AND dispatch_id = ?");
  const pendingStmt = db.prepare(
    "SELECT * FROM inbox_messages WHERE agent_id = ? AND delivered_at IS NULL ORDER BY seq LIMIT ?",
  );
  const getStmt = db.prepare("SELECT * FROM inbox_messages WHERE id = ?");
  const mark = db.prepare(
    "UPDATE inbox_messages SET delivered_at = ?, delivered_to = ? WHERE agent_id = ? AND id = ? AND delivered_at IS NULL",
  );
  const countStmt = db.prepare(
    "SELECT sum(delivered_at IS NULL) AS pending, sum(delivered_at IS NOT NULL) AS delivered FROM inbox_messages WHERE agent_id = ?",
  );

  const record = db.transaction((d: InboxDelivery) => {
    const recordedAt = Date.now();
    const id = `m_${randomBytes(8).toString("hex")}`;
    const info = insert.run({
      id,
      agent_id: d.agentId,
      dispatch_id: d.dispatchId,
      sender: d.from,
      type: d.type,
      subject: d.subject,
      body: d.body,
      sent_at: d.sentAt,
      recorded_at: recordedAt,
    });
    if (info.changes === 1) return { id, recordedAt, duplicate: false };
    const existing = byDispatch.get(d.agentId, d.dispatchId) as { id: string; recorded_at: number };
    return { id: existing.id, recordedAt: existing.recorded_at, duplicate: true };
  });
  const markMany = db.transaction((agentId: string, ids: readonly string[], to: string) => {
    const now = Date.now();
    let changed = 0;
    for (const id of new Set(ids)) changed += mark.run(now, to, agentId, id).changes;
    return changed;
  });

  return {
    file: resolved,
    record: (d) => record.immediate(d),
    pending: (agentId, limit = 50) => (pendingStmt.all(agentId, limit) as Row[]).map(toPeer),
    get(id) {
      const r = getStmt.get(id) as Row | undefined;
      return r
        ? {
            ...toPeer(r),
            agentId: r.agent_id,
            dispatchId: r.dispatch_id,
            recordedAt: r.recorded_at,
            deliveredAt: r.delivered_at,
          }
        : null;
    },
    markDelivered: (agentId, ids, to) => markMany.immediate(agentId, ids, to),
    counts(agentId) {
      const r = countStmt.get(agentId) as { pending: number | null; delivered: number | null };
      return { pending: r.pending ?? 0, delivered: r.delivered ?? 0 };
    },
    close: () => db.close(),
  };
}
