/**
 * The audit trail of one `serve --http`: always the file in .patchbay/, and PostgreSQL as well
 * when gateway.state names one (the file stays: it is this replica's own record when the database
 * is away). What fails to be written is counted and reported once per sink, with its code, and
 * never reaches a call.
 */
import type { Pool } from "pg";
import { pbError } from "../../errors.js";
import type { AuditEntry } from "../clients/gate.js";
import { ensureStateDir } from "../state-dir.js";
import { AuditFile } from "./file-sink.js";
import { AuditPostgres } from "./postgres.js";

export interface AuditTrailOptions {
  /** The state folder (.patchbay/). */
  dir: string;
  maxBytes?: number;
  keep?: number;
  /** gateway.state.postgres: a secret (it came from ${VAR}); never printed. */
  postgres?: string | null;
  /** A message for the operator (serve: stderr, scrubbed). */
  say: (line: string) => void;
}

export interface AuditTrail {
  record(entry: AuditEntry): void;
  /** Entries lost to write errors so far, per sink. */
  lost(): { file: number; postgres: number };
  /** Flushes both sinks: a clean shutdown loses nothing buffered. */
  close(): Promise<void>;
}

export async function startAuditTrail(opts: AuditTrailOptions): Promise<AuditTrail> {
  ensureStateDir(opts.dir);
  const file = new AuditFile(opts.dir, {
    maxBytes: opts.maxBytes,
    keep: opts.keep,
    onError: (err) => opts.say(writeFailed(`${file.file}: ${errorText(err)}`)),
  });
  let pool: Pool | null = null;
  let pg: AuditPostgres | null = null;
  if (opts.postgres) {
    // pg loads only for a gateway that shares state: a plain serve never pays for it.
    const { default: pgModule } = await import("pg");
    // Bounded waits: a database that does not answer must not hold a shutdown (or a batch) forever.
    pool = new pgModule.Pool({
      connectionString: opts.postgres,
      max: 2,
      connectionTimeoutMillis: 5_000,
      query_timeout: 10_000,
    });
    // An idle client's lost connection is emitted on the pool: unhandled, it would end the process.
    pool.on("error", () => undefined);
    // And a connection cut mid-query may error twice (state/postgres.ts, keepErrorsHandled, says why).
    pool.on("connect", (client) => client.on("error", () => undefined));
    pg = new AuditPostgres(pool, {
      onError: (err) =>
        opts.say(
          writeFailed(`the PostgreSQL of gateway.state (table patchbay_gateway_audit): ${errorText(err)}`, "STATE"),
        ),
    });
    // Not awaited: the gateway serves while the table is made (the first batch waits for it).
    void pg.start();
  }
  return {
    record(entry) {
      file.record(entry);
      pg?.record(entry);
    },
    lost: () => ({ file: file.lost, postgres: pg?.lost ?? 0 }),
    async close() {
      await Promise.all([file.close(), pg?.flush(true)]);
      await pool?.end().catch(() => undefined);
      const lost = file.lost + (pg?.lost ?? 0);
      // The count the first warning promised: what this run's trail is missing.
      if (lost > 0)
        opts.say(
          `patchbay: [PB_ERR_AUDIT_WRITE] the audit trail lost ${file.lost} entries in ${file.file}${pg ? ` and ${pg.lost} in PostgreSQL` : ""} while this serve ran.`,
        );
    },
  };
}

/** The error's own words, without a connection string pg may quote (the caller scrubs ${VAR} values too). */
function errorText(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  return `${code ? `${code} ` : ""}${err.message}`.replace(/postgres(ql)?:\/\/\S+/gi, "<connection string>");
}

function writeFailed(what: string, kind: "FILE" | "STATE" = "FILE"): string {
  const e = pbError(
    "PB_ERR_AUDIT_WRITE",
    `The audit trail could not be written to ${what}. Calls go on; entries that cannot be written are counted, and this is said once.`,
  );
  const hint =
    kind === "FILE"
      ? "Check free space and permissions of .patchbay/."
      : "Check gateway.state.postgres and that the database is up.";
  return `patchbay: warning: [${e.code}] ${e.message} ${hint}`;
}
