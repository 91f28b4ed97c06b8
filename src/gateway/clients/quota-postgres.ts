/**
 * Quotas shared by every replica through gateway.state.postgres: one row per client holds both
 * minute counters (quota-window.ts) and the leases of its calls in flight. An admit is one atomic
 * upsert (the row lock orders replicas admitting the same client at once), a release one update.
 *
 * A concurrent slot is a lease with an expiry on the database's clock, renewed while its call
 * runs; a replica that dies stops renewing, so its slots free up within LEASE_MS instead of
 * never. The database's clock also decides the minute windows, so replicas whose clocks drift
 * still count the same windows.
 *
 * PostgreSQL out of reach: the call is refused with PB_ERR_STATE_UNAVAILABLE (fail closed: a quota
 * nobody can count is not a quota), and the next call tries again, so the gateway recovers alone.
 */
import { randomUUID } from "node:crypto";
import type { Admission, QuotaLimits, QuotaStore } from "./gate.js";
import { pastConcurrent, pastRate, stateUnavailable } from "./quota-refusal.js";
import { retryAfterMs, WINDOW_MS } from "./quota-window.js";
import { migrate, STATE_SCHEMA, type SharedState } from "../state/postgres.js";

/** How long a slot outlives the last renewal of the replica that holds it. */
export const LEASE_MS = 10_000;

const TABLE = `${STATE_SCHEMA}.quota`;

const DDL = `
CREATE TABLE IF NOT EXISTS ${TABLE} (
  client       text PRIMARY KEY,
  window_start bigint NOT NULL,
  prev_count   integer NOT NULL,
  curr_count   integer NOT NULL,
  leases       jsonb NOT NULL DEFAULT '{}'::jsonb,
  verdict      text,
  now_ms       double precision NOT NULL
);`;

// The row as it stands now, from the row as stored (q) and this moment (EXCLUDED: what the insert
// proposed). Spelled once here; the upsert repeats them because SET cannot refer to its own results.
const NOW = "EXCLUDED.now_ms";
const START = "EXCLUDED.window_start";
const PREV = `(CASE WHEN q.window_start = ${START} THEN q.prev_count WHEN q.window_start = ${START} - ${WINDOW_MS} THEN q.curr_count ELSE 0 END)`;
const CURR = `(CASE WHEN q.window_start = ${START} THEN q.curr_count ELSE 0 END)`;
const LIVE = `FROM jsonb_each(q.leases) WHERE (value #>> '{}')::float8 > ${NOW}`;
const LEASES = `(SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb) ${LIVE})`;
const CONCURRENT_OK = `($3::int IS NULL OR (SELECT count(*) ${LIVE}) < $3::int)`;
const RATE_OK = `($2::int IS NULL OR ${PREV} * (${WINDOW_MS} - (${NOW} - ${START})) / ${WINDOW_MS}::float8 + ${CURR} + 1 <= $2::int + 1e-9)`;
const OK = `(${CONCURRENT_OK} AND ${RATE_OK})`;

// $1 client, $2 callsPerMinute, $3 concurrent, $4 lease id (null without a concurrent limit), $5 the lease lifetime.
// A client's first call inserts its row admitted: every limit is at least 1.
const ADMIT = `
WITH clock AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now_ms)
INSERT INTO ${TABLE} AS q (client, window_start, prev_count, curr_count, leases, verdict, now_ms)
SELECT $1, (floor(now_ms / ${WINDOW_MS}) * ${WINDOW_MS})::bigint, 0, 1,
       CASE WHEN $4::text IS NULL THEN '{}'::jsonb ELSE jsonb_build_object($4::text, now_ms + $5::int) END,
       NULL, now_ms
FROM clock
ON CONFLICT (client) DO UPDATE SET
  window_start = ${START},
  prev_count = ${PREV},
  curr_count = ${CURR} + (${OK})::int,
  leases = CASE WHEN ${OK} THEN ${LEASES} || EXCLUDED.leases ELSE ${LEASES} END,
  verdict = CASE WHEN NOT ${CONCURRENT_OK} THEN 'concurrent' WHEN NOT ${RATE_OK} THEN 'rate' END,
  now_ms = ${NOW}
RETURNING verdict, prev_count, curr_count, now_ms - window_start AS elapsed_ms`;

const RELEASE = `UPDATE ${TABLE} SET leases = leases - $2::text WHERE client = $1`;
const RELEASE_ALL = `UPDATE ${TABLE} SET leases = leases - $2::text[] WHERE client = ANY($1::text[])`;

// Pushes the expiry of this replica's live leases ($2) forward; a lease already expired and
// dropped by another admit stays dropped (its slot was given away).
const RENEW = `
UPDATE ${TABLE} AS q SET leases = q.leases || coalesce((
  SELECT jsonb_object_agg(key, to_jsonb((extract(epoch FROM clock_timestamp()) * 1000)::float8 + $3::int))
  FROM jsonb_each(q.leases) WHERE key = ANY($2::text[])), '{}'::jsonb)
WHERE client = ANY($1::text[])`;

interface Verdict {
  verdict: "rate" | "concurrent" | null;
  prev_count: number;
  curr_count: number;
  elapsed_ms: number;
}

export class PostgresQuotaStore implements QuotaStore {
  /** Leases this replica holds, by id: the client each belongs to. */
  private readonly held = new Map<string, string>();
  /**
   * Releases on their way, by client. The gateway answers a call without waiting for its release;
   * the client's next call through this replica waits for it instead, so a client calling one
   * call after another is never refused by its own finished call. (Through another replica the
   * release has had the client's round trip to land first.)
   */
  private readonly releasing = new Map<string, Promise<void>>();
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly state: SharedState,
    private readonly leaseMs: number,
  ) {
    // A third of the lifetime: a lease outlives one missed renewal (a slow query, a GC pause).
    this.timer = setInterval(() => void this.renew(), leaseMs / 3);
    this.timer.unref();
  }

  /** Creates the quota table when missing (migrate: safe when replicas start together). */
  static async open(state: SharedState, leaseMs = LEASE_MS): Promise<PostgresQuotaStore> {
    await migrate(state, "quota", 1, DDL);
    return new PostgresQuotaStore(state, leaseMs);
  }

  async admit(clientId: string, limits: QuotaLimits): Promise<Admission> {
    const lease = limits.concurrent === null ? null : randomUUID();
    const pending = lease === null ? undefined : this.releasing.get(clientId);
    if (pending) await pending;
    let row: Verdict;
    try {
      const res = await this.state.pool.query<Verdict>(ADMIT, [
        clientId,
        limits.callsPerMinute,
        limits.concurrent,
        lease,
        this.leaseMs,
      ]);
      row = res.rows[0];
    } catch (err) {
      return stateUnavailable(clientId, this.state.describe(err));
    }
    if (row.verdict === "concurrent") return pastConcurrent(clientId, limits.concurrent ?? 0);
    if (row.verdict === "rate") {
      const limit = limits.callsPerMinute ?? 0;
      const counts = { previous: row.prev_count, current: row.curr_count, elapsedMs: Number(row.elapsed_ms) };
      return pastRate(clientId, limit, retryAfterMs(counts, limit));
    }
    if (lease === null) return { ok: true, release: () => undefined };
    this.held.set(lease, clientId);
    return { ok: true, release: () => this.release(clientId, lease) };
  }

  /** Gives a lease back once; when PostgreSQL is out of reach it lapses at its expiry instead. */
  private release(clientId: string, lease: string): void {
    if (!this.held.delete(lease)) return;
    const before = this.releasing.get(clientId);
    const sent = this.state.pool.query(RELEASE, [clientId, lease]).then(
      () => undefined,
      () => undefined,
    );
    const both = before ? Promise.all([before, sent]).then(() => undefined) : sent;
    this.releasing.set(clientId, both);
    void both.then(() => {
      if (this.releasing.get(clientId) === both) this.releasing.delete(clientId);
    });
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const leases = [...this.held.keys()];
    const clients = [...new Set(this.held.values())];
    await this.state.pool.query(RENEW, [clients, leases, this.leaseMs]).catch(() => undefined);
  }

  /**
   * Stops renewing and gives back the slots still held in one statement: the calls they belong to
   * end with this server, and their releases would find the pool closed.
   */
  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.held.size === 0) return;
    const leases = [...this.held.keys()];
    const clients = [...new Set(this.held.values())];
    this.held.clear();
    await this.state.pool.query(RELEASE_ALL, [clients, leases]).catch(() => undefined);
  }
}
