/**
 * `patchbay audit [--client ID] [--since 10m] [--json]`: who called what through the gateway.
 * Reads .patchbay/audit.log and its rotated files, or, when connectors.json names a
 * gateway.state PostgreSQL, the table every replica writes to (one trail across replicas).
 * A table for people; with --json one JSON document, `{ "entries": [...] }`, each entry as the
 * trail stores it (`jq '.entries[]'` gives the lines back).
 */
import { EXIT, pbError, type ExitCode } from "../../errors.js";
import path from "node:path";
import { resolveConfigValue } from "../../config/load.js";
import { readConfigFile, resolveConfigPath } from "../../config/source.js";
import type { AuditEntry } from "../../gateway/clients/gate.js";
import { readAuditFiles } from "../../gateway/audit/read.js";
import { stateDir } from "../../gateway/state-dir.js";
import { flagString, type ParsedArgs } from "../args.js";
import { table, type Output } from "../render.js";
import { revealHidden } from "../../gateway/pins/hidden-text.js";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `10m`, `90s`, `2h`, `7d`, or an ISO time: the earliest entry shown. */
export function parseSince(value: string, now = Date.now()): Date {
  const m = /^(\d{1,9})(s|m|h|d)$/.exec(value.trim());
  if (m) return new Date(now - Number(m[1]) * UNITS[m[2]]);
  // Only a full date (and time) is a time: Date.parse also takes words like "1" or "March".
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    const t = Date.parse(value.trim());
    if (!Number.isNaN(t)) return new Date(t);
  }
  throw pbError(
    "PB_ERR_USAGE",
    `--since ${JSON.stringify(value.slice(0, 100))} is neither a duration (e.g. 90s, 10m, 2h, 7d) nor an ISO time (e.g. 2026-01-31T08:00:00Z).`,
    { flag: "since" },
    "Run `patchbay audit --help` for its flags and examples.",
  );
}

type Row = AuditEntry & { replica?: string };

/**
 * The file's gateway.state, resolved and checked alone: reading the trail needs none of the
 * connectors' or clients' secrets, which the shell an operator reads it from seldom has (a client
 * token given as "${VAR}" would otherwise stop the reading).
 */
async function trailState(file: string): Promise<{ postgres: string } | null> {
  const raw = await readConfigFile(file);
  const gateway = raw && typeof raw === "object" ? (raw as { gateway?: unknown }).gateway : undefined;
  const state = gateway && typeof gateway === "object" ? (gateway as { state?: unknown }).state : undefined;
  if (state === undefined) return null;
  const config = resolveConfigValue({ gateway: { state } }, { file, dir: path.dirname(file), env: process.env });
  return config.gateway.state;
}

export async function auditCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  const sinceFlag = flagString(args, "since");
  const since = sinceFlag === undefined ? undefined : parseSince(sinceFlag);
  const client = flagString(args, "client");
  const file = resolveConfigPath({ config: flagString(args, "config") }).file;
  const state = await trailState(file);
  let rows: Row[];
  let skipped = 0;
  if (state) {
    rows = await fromPostgres(state.postgres, { client, since });
  } else {
    const read = await readAuditFiles(stateDir(file), { client, since });
    rows = read.entries;
    skipped = read.skipped;
    if (read.skipped > 0)
      io.err(
        `patchbay audit: skipped ${read.skipped} line${read.skipped === 1 ? "" : "s"} that ${read.skipped === 1 ? "is" : "are"} not audit entries (the first at ${read.firstSkipped}).`,
      );
  }
  if (args.flags.json) {
    const source = state ? "postgres" : "file";
    io.out(
      JSON.stringify({ source, client: client ?? null, since: since?.toISOString() ?? null, skipped, entries: rows }),
    );
    return EXIT.OK;
  }
  if (rows.length === 0) {
    io.out(`No audit entries${client ? ` of client "${client}"` : ""}${since ? ` since ${since.toISOString()}` : ""}.`);
    return EXIT.OK;
  }
  const replicas = rows.some((r) => r.replica !== undefined);
  io.out(
    table([
      [
        "TIME",
        "CLIENT",
        ...(replicas ? ["REPLICA"] : []),
        "SESSION",
        "INSTANCE",
        "REQUEST",
        "OUTCOME",
        "MS",
        "IN",
        "OUT",
        "KEY",
      ],
      ...rows.map((r) =>
        [
          r.time,
          r.client,
          ...(replicas ? [r.replica ?? "-"] : []),
          r.session ? r.session.slice(0, 8) : "-",
          r.instance,
          `${r.kind} ${r.name}`,
          r.outcome,
          String(Math.round(r.durationMs)),
          String(r.bytesIn),
          String(r.bytesOut),
          r.idempotencyKey ?? "-",
        ].map(printable),
      ),
    ]),
  );
  return EXIT.OK;
}

/**
 * A cell as text a terminal shows as it is: a client chooses its idempotency key and the names it
 * calls, and an escape sequence, a line break or a bidi override there would repaint the
 * operator's screen or forge a row. Each such character is shown as <U+XXXX>.
 */
function printable(cell: string): string {
  return revealHidden(cell).replace(
    /[\t\n\r]/g,
    (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`,
  );
}

/** Every replica's entries from gateway.state's table; the connection string is never printed. */
async function fromPostgres(connectionString: string, q: { client?: string; since?: Date }): Promise<Row[]> {
  const [{ default: pg }, { readAuditRows }] = await Promise.all([
    import("pg"),
    import("../../gateway/audit/postgres.js"),
  ]);
  const pool = new pg.Pool({ connectionString, max: 1 });
  pool.on("error", () => undefined);
  try {
    return await readAuditRows(pool, q);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const missing = e.code === "42P01";
    throw pbError(
      "PB_ERR_AUDIT_UNREADABLE",
      missing
        ? "The PostgreSQL of gateway.state has no audit table yet: no `patchbay serve --http` with this gateway.state has started."
        : `The audit trail in the PostgreSQL of gateway.state cannot be read: ${e.code ? `${e.code} ` : ""}${e.message.replace(/postgres(ql)?:\/\/\S+/gi, "<connection string>")}.`,
      { table: "patchbay_gateway_audit" },
      "Check gateway.state.postgres (its ${VAR}) and that the database is up and this user may read patchbay_gateway_audit.",
    );
  } finally {
    await pool.end().catch(() => undefined);
  }
}
