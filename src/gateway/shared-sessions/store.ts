/**
 * The stateful HTTP sessions every replica can serve, kept in gateway.state's PostgreSQL: what
 * a replica needs to serve a session it never saw (the initialize request's params, the caller
 * it is bound to, the log level), each session's notifications in order (a per-session number,
 * bounded history for Last-Event-ID), and its resource subscriptions with the replica that holds
 * each on its instance.
 *
 * Every change another replica must hear of is announced on one LISTEN/NOTIFY channel (bus.ts
 * reads it) in the statement that makes it, so the announcement is sent exactly when the change
 * commits. Payloads stay small: an event's message rides along only when short; a longer one is
 * read from its row by whoever delivers it.
 */
import type pg from "pg";
import { migrate, STATE_SCHEMA, type SharedState } from "../state/postgres.js";

export const CHANNEL = "patchbay_sessions";
/** Notifications kept per session for a client resuming with Last-Event-ID; older ones are pruned. */
export const EVENTS_KEPT = 256;
/** A message longer than this is announced by reference (NOTIFY payloads stop at 8000 bytes). */
const INLINE_MAX = 7_000;

const S = STATE_SCHEMA;
const DDL = `
CREATE TABLE IF NOT EXISTS ${S}.sessions (
  id text PRIMARY KEY,
  binding text NOT NULL,
  client text NOT NULL,
  init text NOT NULL,
  log_level text,
  seq bigint NOT NULL DEFAULT 0,
  seen timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS sessions_seen ON ${S}.sessions (seen);
CREATE TABLE IF NOT EXISTS ${S}.session_events (
  session_id text NOT NULL REFERENCES ${S}.sessions (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  message text NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE INDEX IF NOT EXISTS sessions_binding_seen ON ${S}.sessions (binding, seen);
CREATE TABLE IF NOT EXISTS ${S}.session_subscriptions (
  session_id text NOT NULL REFERENCES ${S}.sessions (id) ON DELETE CASCADE,
  instance text NOT NULL,
  uri text NOT NULL,
  holder text,
  PRIMARY KEY (session_id, instance, uri)
);
CREATE INDEX IF NOT EXISTS session_subscriptions_holder ON ${S}.session_subscriptions (holder);
`;

export interface SessionRecord {
  id: string;
  /** The caller the session is bound to (clients/caller.ts `binding`) and its client id. */
  binding: string;
  client: string;
  /** The initialize request's params, as the client sent them. */
  init: Record<string, unknown>;
  logLevel: string | null;
  /** The number of the session's last notification. */
  seq: number;
}

export interface StoredEvent {
  seq: number;
  message: string;
}

export interface HeldSubscription {
  session: string;
  instance: string;
  uri: string;
}

export class SessionStore {
  private constructor(private readonly state: SharedState) {}

  static async open(state: SharedState): Promise<SessionStore> {
    // 2: the (binding, seen) index that keeps a caller's sessions bounded cheaply (the DDL is idempotent).
    await migrate(state, "sessions", 2, DDL);
    return new SessionStore(state);
  }

  get pool(): pg.Pool {
    return this.state.pool;
  }

  describe(err: unknown): string {
    return this.state.describe(err);
  }

  /**
   * Records a new session; beyond the `keep` most recently used of its caller's, the others end
   * (everywhere, announced as any end is), so a client that initializes in a loop holds a bounded
   * number of rows rather than filling the database until idle expiry.
   */
  async create(rec: Omit<SessionRecord, "seq" | "logLevel">, keep: number): Promise<void> {
    await this.pool.query(`INSERT INTO ${S}.sessions (id, binding, client, init) VALUES ($1, $2, $3, $4)`, [
      rec.id,
      rec.binding,
      rec.client,
      JSON.stringify(rec.init),
    ]);
    // Rows another statement holds are skipped, never waited for: two of a caller's initializes at
    // once (or a touch) would otherwise lock the same rows in two orders and deadlock. What is
    // skipped, or a trim that fails, is trimmed by the caller's next initialize; the session is made.
    await this.endWhere(
      `id IN (SELECT id FROM ${S}.sessions WHERE binding = $1 AND id <> $2 ORDER BY seen DESC OFFSET $3
              FOR UPDATE SKIP LOCKED)`,
      [rec.binding, rec.id, Math.max(0, keep - 1)],
    ).catch(() => undefined);
  }

  async get(id: string): Promise<SessionRecord | null> {
    const { rows } = await this.pool.query<{
      binding: string;
      client: string;
      init: string;
      log_level: string | null;
      seq: string;
    }>(`SELECT binding, client, init, log_level, seq FROM ${S}.sessions WHERE id = $1`, [id]);
    const r = rows[0];
    if (!r) return null;
    return {
      id,
      binding: r.binding,
      client: r.client,
      init: JSON.parse(r.init) as Record<string, unknown>,
      logLevel: r.log_level,
      seq: Number(r.seq),
    };
  }

  /** Whether the session still exists: the one round trip a request served from a local copy costs. */
  async exists(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(`SELECT 1 FROM ${S}.sessions WHERE id = $1`, [id]);
    return (rowCount ?? 0) > 0;
  }

  /** Ends a session everywhere; true when it existed. */
  async end(id: string): Promise<boolean> {
    return (await this.endWhere("id = $1", [id])) > 0;
  }

  /** Sessions no request touched for `idleMs` end, on every replica at once. */
  async expire(idleMs: number): Promise<number> {
    return this.endWhere("seen < now() - make_interval(secs => $1)", [idleMs / 1000]);
  }

  /** These sessions were used: their idle clock starts again. */
  async touch(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.pool.query(`UPDATE ${S}.sessions SET seen = now() WHERE id = ANY($1)`, [ids]);
  }

  async setLogLevel(id: string, level: string): Promise<void> {
    await this.pool.query(
      `WITH u AS (UPDATE ${S}.sessions SET log_level = $2 WHERE id = $1 RETURNING id)
       SELECT pg_notify('${CHANNEL}', 'l ' || id || ' ' || $2) FROM u`,
      [id, level],
    );
  }

  /**
   * Appends a notification to the session's stream and announces it; null when the session is gone.
   * The session row's lock orders concurrent appends: numbers commit (and are announced) in order.
   */
  async append(id: string, message: string): Promise<number | null> {
    const { rows } = await this.pool.query<{ seq: string }>(
      `WITH s AS (UPDATE ${S}.sessions SET seq = seq + 1 WHERE id = $1 RETURNING id, seq),
            e AS (INSERT INTO ${S}.session_events (session_id, seq, message) SELECT id, seq, $2 FROM s RETURNING seq)
       SELECT seq, pg_notify('${CHANNEL}', 'e ' || $1 || ' ' || seq ||
         CASE WHEN octet_length($2) <= ${INLINE_MAX} THEN E'\\n' || $2 ELSE '' END) FROM e`,
      [id, message],
    );
    const seq = rows[0] ? Number(rows[0].seq) : null;
    if (seq !== null && seq % 32 === 0)
      void this.pool
        .query(`DELETE FROM ${S}.session_events WHERE session_id = $1 AND seq <= $2`, [id, seq - EVENTS_KEPT])
        .catch(() => undefined);
    return seq;
  }

  /** The session's notifications after `seq`, in order (at most the EVENTS_KEPT last). */
  async eventsAfter(id: string, seq: number): Promise<StoredEvent[]> {
    const { rows } = await this.pool.query<{ seq: string; message: string }>(
      `SELECT seq, message FROM ${S}.session_events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT ${EVENTS_KEPT}`,
      [id, seq],
    );
    return rows.map((r) => ({ seq: Number(r.seq), message: r.message }));
  }

  /** The number of the session's last notification (null: the session is gone). */
  async lastSeq(id: string): Promise<number | null> {
    const { rows } = await this.pool.query<{ seq: string }>(`SELECT seq FROM ${S}.sessions WHERE id = $1`, [id]);
    return rows[0] ? Number(rows[0].seq) : null;
  }

  /** Tells every replica the client cancelled request `requestId` (its call may run on any of them). */
  async cancel(id: string, requestId: string | number): Promise<void> {
    await this.pool.query(`SELECT pg_notify('${CHANNEL}', 'c ' || $1 || E'\\n' || $2)`, [
      id,
      JSON.stringify(requestId),
    ]);
  }

  /** Records that `holder` holds the session's subscription to `uri` on `instance`. */
  async subscribed(session: string, instance: string, uri: string, holder: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${S}.session_subscriptions (session_id, instance, uri, holder) VALUES ($1, $2, $3, $4)
       ON CONFLICT (session_id, instance, uri) DO UPDATE SET holder = EXCLUDED.holder`,
      [session, instance, uri, holder],
    );
  }

  /** Forgets the session's subscriptions to `uri`; the replicas holding them are told to let go. */
  async unsubscribed(session: string, uri: string): Promise<void> {
    await this.pool.query(
      `WITH d AS (DELETE FROM ${S}.session_subscriptions WHERE session_id = $1 AND uri = $2 RETURNING holder, instance)
       SELECT pg_notify('${CHANNEL}', 'u ' || $1 || ' ' || coalesce(holder, '-') || ' ' || instance || E'\\n' || $2) FROM d`,
      [session, uri],
    );
  }

  /**
   * The replicas named as holders of subscriptions on `instances`, other than `me` (null: released
   * by a replica that stopped).
   */
  async holders(me: string, instances: string[]): Promise<(string | null)[]> {
    const { rows } = await this.pool.query<{ holder: string | null }>(
      `SELECT DISTINCT holder FROM ${S}.session_subscriptions WHERE holder IS DISTINCT FROM $1 AND instance = ANY($2)`,
      [me, instances],
    );
    return rows.map((r) => r.holder);
  }

  /**
   * Takes over the subscriptions on `instances` of replicas that are gone (and those released):
   * each row goes to exactly one claimant, since the update re-checks its holder under the row lock.
   * Only on instances the claimant runs: a replica of another configuration on the same database
   * (or one a rollout has not reached) leaves them to a replica that can hold them.
   */
  async claim(me: string, gone: string[], instances: string[]): Promise<HeldSubscription[]> {
    const { rows } = await this.pool.query<{ session_id: string; instance: string; uri: string }>(
      `UPDATE ${S}.session_subscriptions SET holder = $1
       WHERE (holder IS NULL OR holder = ANY($2)) AND instance = ANY($3)
       RETURNING session_id, instance, uri`,
      [me, gone, instances],
    );
    return rows.map((r) => ({ session: r.session_id, instance: r.instance, uri: r.uri }));
  }

  /** Hands back one subscription `me` claimed but could not carry on: the next round, on any replica, claims it. */
  async letGo(me: string, row: HeldSubscription): Promise<void> {
    await this.pool.query(
      `UPDATE ${S}.session_subscriptions SET holder = NULL
       WHERE session_id = $1 AND instance = $2 AND uri = $3 AND holder = $4`,
      [row.session, row.instance, row.uri, me],
    );
  }

  /** A replica stopping lets go of what it held: the others claim it at once. */
  async release(me: string): Promise<void> {
    await this.pool.query(`UPDATE ${S}.session_subscriptions SET holder = NULL WHERE holder = $1`, [me]);
  }

  /**
   * Ends the sessions matching `where` (a condition on sessions' columns; `params` are its $n) and
   * announces each end in the same statement, so every way a session ends is heard alike everywhere.
   * How many ended.
   */
  private async endWhere(where: string, params: unknown[]): Promise<number> {
    const { rowCount } = await this.pool.query(
      `WITH d AS (DELETE FROM ${S}.sessions WHERE ${where} RETURNING id)
       SELECT pg_notify('${CHANNEL}', 'x ' || id) FROM d`,
      params,
    );
    return rowCount ?? 0;
  }
}
