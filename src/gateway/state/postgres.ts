/**
 * The PostgreSQL that gateway.state.postgres names, shared by the replicas of one gateway: one Pool
 * per process, and the migrations of each part that keeps state there (quotas, and later the audit
 * trail), each part under its own name and version in one schema Patchbay owns.
 *
 * The connection string usually comes from ${VAR} and carries a password: nothing here prints it.
 * Errors name gateway.state and say what failed (refused, timed out, authentication), scrubbed of
 * the string and its password.
 */
import pg from "pg";
import { isPatchbayError, pbError, type PatchbayError } from "../../errors.js";

/** The schema Patchbay creates for its gateway state; nothing else of the database is touched. */
export const STATE_SCHEMA = "patchbay_gateway";

/** How long a connection or a statement may take before the request it serves is refused (fail closed). */
const CONNECT_TIMEOUT_MS = 3_000;
const STATEMENT_TIMEOUT_MS = 3_000;

export interface SharedState {
  pool: pg.Pool;
  /** Why the database failed, safe to show: without the connection string or its password. */
  describe(err: unknown): string;
  close(): Promise<void>;
}

/**
 * Opens the pool and checks the database answers; throws PB_ERR_STATE_UNAVAILABLE naming
 * gateway.state when it does not, so serve refuses to start rather than run without its quotas.
 */
export async function openSharedState(url: string): Promise<SharedState> {
  const describe = describer(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + 1_000,
    idleTimeoutMillis: 30_000,
    application_name: "patchbay-gateway",
  });
  // An idle connection the server drops (restart, network) errors on the pool; unhandled, that
  // would end the process. The next query opens a new connection, or fails and is refused.
  pool.on("error", () => undefined);
  pool.on("connect", keepErrorsHandled);
  try {
    await pool.query("SELECT 1");
  } catch (err) {
    await pool.end().catch(() => undefined);
    // A URL that does not parse will never connect: the operator's to fix, not an outage to wait out.
    if ((err as NodeJS.ErrnoException).code === "ERR_INVALID_URL")
      throw pbError(
        "PB_ERR_CONFIG_INVALID",
        "connectors.json /gateway/state/postgres: the value is not a PostgreSQL connection URL (it does not parse as a URL).",
        { pointer: "/gateway/state/postgres" },
        "Give gateway.state.postgres a URL of the form postgres://user:password@host:5432/database (percent-encode special characters in the password).",
      );
    throw unavailable(`could not connect: ${describe(err)}`);
  }
  let closed = false;
  return {
    pool,
    describe,
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end().catch(() => undefined);
    },
  };
}

/**
 * Runs `ddl` for `part` when the database holds an older version of it. Replicas start at once,
 * so it runs in one transaction under an advisory lock: one creates, the others wait and find it
 * done. CREATE … IF NOT EXISTS keeps a re-run harmless too.
 */
export async function migrate(state: SharedState, part: string, version: number, ddl: string): Promise<void> {
  const client = await state.pool.connect().catch((err: unknown) => {
    throw unavailable(`could not connect: ${state.describe(err)}`);
  });
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`patchbay-gateway-state:${part}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${STATE_SCHEMA}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${STATE_SCHEMA}.migrations (part text PRIMARY KEY, version integer NOT NULL)`,
    );
    const found = await client.query<{ version: number }>(
      `SELECT version FROM ${STATE_SCHEMA}.migrations WHERE part = $1`,
      [part],
    );
    const have = found.rows[0]?.version ?? 0;
    if (have > version)
      throw pbError(
        "PB_ERR_STATE_UNAVAILABLE",
        `gateway.state: the ${part} tables were written by a newer Patchbay (version ${have}; this one knows ${version}).`,
        { part, version: have },
      );
    if (have < version) {
      await client.query(ddl);
      await client.query(
        `INSERT INTO ${STATE_SCHEMA}.migrations (part, version) VALUES ($1, $2)
         ON CONFLICT (part) DO UPDATE SET version = EXCLUDED.version`,
        [part, version],
      );
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    if (isPatchbayError(err)) throw err;
    throw unavailable(`could not prepare its ${part} tables: ${state.describe(err)}`);
  } finally {
    client.release();
  }
}

function unavailable(what: string): PatchbayError {
  return pbError("PB_ERR_STATE_UNAVAILABLE", `gateway.state.postgres: ${what}.`, { setting: "gateway.state.postgres" });
}

/** A database error as a short reason, with the connection string and its password cut out. */
function describer(url: string): (err: unknown) => string {
  const secrets = [url];
  try {
    const parsed = new URL(url);
    if (parsed.password) secrets.push(parsed.password, decodeURIComponent(parsed.password));
  } catch {
    // Not a URL (a keyword/value string): the whole string is still cut out.
  }
  return (err) => {
    const e = err as { code?: unknown; message?: unknown };
    let text = typeof e?.message === "string" && e.message ? e.message : String(err);
    if (typeof e?.code === "string" && !text.includes(e.code)) text = `${e.code}: ${text}`;
    for (const s of secrets) if (s) text = text.split(s).join("***");
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  };
}

/**
 * Gives each connection an error listener for its whole life. pg-pool listens to a checked-out
 * connection only once per query: a socket cut mid-query can emit a second error (ECONNRESET, then
 * the failed write), which with no listener ends the process. The query itself still fails (pg
 * errors every pending query on the connection), and the pool drops the connection.
 */
export function keepErrorsHandled(client: pg.PoolClient): void {
  client.on("error", () => undefined);
}
