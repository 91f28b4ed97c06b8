/**
 * Reading the audit trail back from .patchbay/: audit.log and every rotated audit.log.N, oldest
 * first, a line at a time (a file may be large). A line that is not an audit entry (a torn write,
 * a hand edit) is skipped and counted, never the end of the read: the rest of the trail still
 * says who called what.
 */
import { createReadStream } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { pbError } from "../../errors.js";
import type { AuditEntry } from "../clients/gate.js";
import { AUDIT_FILE } from "./file-sink.js";
import type { AuditQuery } from "./postgres.js";

export interface AuditRead {
  entries: AuditEntry[];
  /** Lines that were not audit entries. */
  skipped: number;
  /** The first of them, "file:line", to look at. */
  firstSkipped: string | null;
  files: string[];
}

const ROTATED = /^audit\.log\.(\d{1,4})$/;

/** The trail's files in `dir`, oldest first (the highest rotation number first, audit.log last). */
async function trailFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw unreadable(dir, err as NodeJS.ErrnoException);
    names = [];
  }
  const rotated = names
    .map((n) => ROTATED.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(b[1]) - Number(a[1]))
    .map((m) => path.join(dir, m[0]));
  const current = names.includes(AUDIT_FILE) ? [path.join(dir, AUDIT_FILE)] : [];
  const files = [...rotated, ...current];
  if (files.length === 0)
    throw pbError(
      "PB_ERR_AUDIT_UNREADABLE",
      `There is no audit trail in ${dir} (no ${AUDIT_FILE}): \`patchbay serve --http\` of this config writes it at the first request that reaches an instance.`,
      { file: path.join(dir, AUDIT_FILE) },
      "Check --config names the connectors.json the gateway serves, or that the gateway has answered a call since its audit trail began.",
    );
  return files;
}

export async function readAuditFiles(dir: string, q: AuditQuery = {}): Promise<AuditRead> {
  const files = await trailFiles(dir);
  const out: AuditRead = { entries: [], skipped: 0, firstSkipped: null, files };
  const since = q.since?.getTime();
  for (const file of files) {
    let n = 0;
    try {
      const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
      for await (const line of lines) {
        n++;
        if (line.trim() === "") continue;
        const entry = parseEntry(line);
        if (!entry) {
          out.skipped++;
          out.firstSkipped ??= `${file}:${n}`;
          continue;
        }
        if (q.client !== undefined && entry.client !== q.client) continue;
        if (since !== undefined && Date.parse(entry.time) < since) continue;
        out.entries.push(entry);
      }
    } catch (err) {
      // Rotated away between the listing and the read: its lines are in the next file now.
      if ((err as NodeJS.ErrnoException).code === "ENOENT" && file !== files.at(-1)) continue;
      throw unreadable(file, err as NodeJS.ErrnoException);
    }
  }
  return out;
}

const STRINGS = ["time", "client", "instance", "kind", "name", "outcome"] as const;
const NUMBERS = ["durationMs", "bytesIn", "bytesOut"] as const;

/** One line as an entry, or null when it is not one (every field present, of its type). */
function parseEntry(line: string): AuditEntry | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const e = v as Record<string, unknown>;
  if (!STRINGS.every((k) => typeof e[k] === "string")) return null;
  if (!NUMBERS.every((k) => typeof e[k] === "number" && Number.isFinite(e[k]))) return null;
  if (Number.isNaN(Date.parse(e.time as string))) return null;
  const nullableString = (x: unknown) => x === null || typeof x === "string";
  if (!nullableString(e.session) || !nullableString(e.idempotencyKey)) return null;
  return e as unknown as AuditEntry;
}

function unreadable(what: string, err: NodeJS.ErrnoException) {
  return pbError(
    "PB_ERR_AUDIT_UNREADABLE",
    `The audit trail cannot be read: ${what}: ${err.code ?? ""} ${err.message}`.trim() + ".",
    { file: what },
    err.code === "EACCES"
      ? `Run \`patchbay audit\` as the user that runs \`patchbay serve\` (.patchbay/ is private to it).`
      : undefined,
  );
}
