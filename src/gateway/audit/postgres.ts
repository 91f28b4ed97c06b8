/**
 * The audit trail in PostgreSQL, for replicas that share gateway.state: every replica appends to
 * one table, so `patchbay audit` reads one trail across them. It takes a pg Pool rather than a
 * connection string, so it can share the pool of the rest of the shared state.
 *
 * Like the file, the hot path only buffers: a batch is inserted at a time (one statement through
 * unnest, whatever its size), and a database that refuses loses its batch, counted and reported
 * once, never failing a call.
 */
import os from "node:os";
import type { Pool } from "pg";
import type { AuditEntry } from "../clients/gate.js";
import { Batches } from "./batches.js";

const AUDIT_TABLE = "patchbay_gateway_audit";

const FLUSH_MS = 200;
const FLUSH_ROWS = 500;
/** While the database is down, at most this many rows wait; past it the oldest are dropped and counted. */
const MAX_PENDING = 20_000;
/** Any number both replicas agree on: it serializes their CREATE TABLE IF NOT EXISTS. */
const SCHEMA_LOCK = 0x7062_6175;

const COLUMNS =
  "time, replica, client, session, instance, kind, name, outcome, duration_ms, bytes_in, bytes_out, idempotency_key";

/**
 * Creates the table and its indexes when missing. Two replicas starting at once would race on
 * the catalog (a unique violation from CREATE TABLE IF NOT EXISTS), so it runs under an advisory
 * lock held for its transaction.
 */
async function ensureAuditTable(pool: Pool): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query("BEGIN");
    await c.query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
    await c.query(`CREATE TABLE IF NOT EXISTS ${AUDIT_TABLE} (
      id bigserial PRIMARY KEY,
      time timestamptz NOT NULL,
      replica text NOT NULL,
      client text NOT NULL,
      session text,
      instance text NOT NULL,
      kind text NOT NULL,
      name text NOT NULL,
      outcome text NOT NULL,
      duration_ms double precision NOT NULL,
      bytes_in bigint NOT NULL,
      bytes_out bigint NOT NULL,
      idempotency_key text)`);
    await c.query(`CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_time ON ${AUDIT_TABLE} (time)`);
    await c.query(`CREATE INDEX IF NOT EXISTS ${AUDIT_TABLE}_client_time ON ${AUDIT_TABLE} (client, time)`);
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    c.release();
  }
}

export interface AuditPgOptions {
  /** Which process wrote a row (default host:pid): replicas are told apart in the trail. */
  replica?: string;
  /** Told once, at the first lost batch. */
  onError?: (err: Error) => void;
}

/** After a failed write the batch waits this long (doubling, up to RETRY_MAX_MS) before it is tried again. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

export class AuditPostgres {
  lost = 0;
  private readonly replica: string;
  private pending: AuditEntry[] = [];
  /** While the database is away: when the kept entries are tried again, and the wait after that. */
  private retryAt = 0;
  private retryMs = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly batches = new Batches(
    () => this.pending.length > 0 && Date.now() >= this.retryAt,
    () => this.insertBatch(),
  );
  private reported = false;
  private tableReady = false;

  constructor(
    private readonly pool: Pool,
    private readonly opts: AuditPgOptions = {},
  ) {
    this.replica = opts.replica ?? `${os.hostname()}:${process.pid}`;
  }

  /** Creates the table now, so a bad database is reported at start; retried with each batch until it works. */
  async start(): Promise<void> {
    await this.prepare().catch((err: Error) => this.report(err));
  }

  private async prepare(): Promise<void> {
    if (this.tableReady) return;
    await ensureAuditTable(this.pool);
    this.tableReady = true;
  }

  record(entry: AuditEntry): void {
    this.pending.push(entry);
    this.keepBound();
    if (Date.now() >= this.retryAt) this.batches.added(FLUSH_MS, this.pending.length >= FLUSH_ROWS);
  }

  /**
   * Writes what waits. `final` (the serve is stopping): one more try even while waiting to retry,
   * and what still cannot be written is counted lost.
   */
  async flush(final = false): Promise<void> {
    if (final) this.retryAt = 0;
    await this.batches.flush();
    if (final) {
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.lost += this.pending.splice(0).length;
    }
  }

  /** The oldest entries go first when the database has been away long enough to fill the buffer. */
  private keepBound(): void {
    const over = this.pending.length - MAX_PENDING;
    if (over > 0) {
      this.pending.splice(0, over);
      this.lost += over;
    }
  }

  private async insertBatch(): Promise<void> {
    const rows = this.pending.splice(0, FLUSH_ROWS * 4);
    const col = <T>(f: (e: AuditEntry) => T): T[] => rows.map(f);
    try {
      await this.prepare();
      await this.pool.query(
        `INSERT INTO ${AUDIT_TABLE} (${COLUMNS}) SELECT * FROM unnest(
          $1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
          $9::float8[], $10::int8[], $11::int8[], $12::text[])`,
        [
          col((e) => e.time),
          col(() => this.replica),
          col((e) => e.client),
          col((e) => e.session),
          col((e) => e.instance),
          col((e) => e.kind),
          col((e) => noNul(e.name)),
          col((e) => e.outcome),
          col((e) => e.durationMs),
          col((e) => e.bytesIn),
          col((e) => e.bytesOut),
          col((e) => (e.idempotencyKey === null ? null : noNul(e.idempotencyKey))),
        ],
      );
      this.retryAt = 0;
      this.retryMs = 0;
    } catch (err) {
      // A batch the database refuses for what it holds would be refused again: it is lost, as before.
      if (!isTransient(err)) {
        this.lost += rows.length;
        return this.report(err as Error);
      }
      // Kept, in order, and tried again later: a database that is away for a moment must not
      // leave a gap in the shared trail (the file trail has every entry regardless).
      this.pending.unshift(...rows);
      this.keepBound();
      this.retryMs = Math.min(this.retryMs ? this.retryMs * 2 : RETRY_FIRST_MS, RETRY_MAX_MS);
      this.retryAt = Date.now() + this.retryMs;
      if (this.retryTimer) clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => void this.batches.flush(), this.retryMs);
      this.retryTimer.unref();
      this.report(err as Error);
    }
  }

  private report(err: Error): void {
    if (this.reported) return;
    this.reported = true;
    this.opts.onError?.(err);
  }
}

/**
 * Whether a failed write is worth trying again: the database or the way to it was away (no SQL
 * error at all, or SQLSTATE class 08 connection, 53 resources, 57 operator intervention, 40
 * rollback), not a refusal of the rows themselves.
 */
function isTransient(err: unknown): boolean {
  const e = err as { severity?: unknown; code?: unknown };
  if (typeof e?.severity !== "string" || typeof e.code !== "string") return true;
  return /^(08|53|57|40)/.test(e.code);
}

/** PostgreSQL text cannot hold U+0000, and a client chooses its key and the names it calls. */
const noNul = (text: string): string => (text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text);

export interface AuditQuery {
  client?: string;
  /** Only entries at or after this time. */
  since?: Date;
}

/** The stored entries, oldest first, across every replica that wrote to the table. */
export async function readAuditRows(pool: Pool, q: AuditQuery): Promise<(AuditEntry & { replica: string })[]> {
  const res = await pool.query(
    `SELECT ${COLUMNS} FROM ${AUDIT_TABLE}
      WHERE ($1::text IS NULL OR client = $1) AND ($2::timestamptz IS NULL OR time >= $2)
      ORDER BY time, id`,
    [q.client ?? null, q.since ?? null],
  );
  return res.rows.map((r) => ({
    time: new Date(r.time).toISOString(),
    replica: r.replica,
    client: r.client,
    session: r.session,
    instance: r.instance,
    kind: r.kind,
    name: r.name,
    outcome: r.outcome,
    durationMs: Number(r.duration_ms),
    bytesIn: Number(r.bytes_in),
    bytesOut: Number(r.bytes_out),
    idempotencyKey: r.idempotency_key,
  }));
}
