/**
 * The install record, <state>/installs.json: what each adapter instance's install wrote, with
 * content hashes taken after the write. Uninstall works from it alone (no adapter needs to load).
 * A record that cannot be read fails closed: install and uninstall refuse, nothing is deleted.
 * No timestamps: installing twice leaves the record byte-identical too.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { pbError } from "../../errors.js";
import { writeFileAtomic } from "../fs-atomic.js";

const abs = z.string().refine((p) => p.startsWith("/"), "must be an absolute path");
const dirs = z.array(abs);

const Recorded = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("tree"), path: abs, sha256: z.string(), createdDirs: dirs }),
  z.strictObject({ kind: z.literal("file"), path: abs, sha256: z.string(), createdDirs: dirs }),
  z.strictObject({
    kind: z.literal("merge"),
    path: abs,
    format: z.literal("json"),
    /** Hash of the bytes Patchbay wrote: still equal at uninstall = the user has not touched the file since. */
    sha256: z.string(),
    original: z.strictObject({
      existed: z.boolean(),
      /** base64 of the original bytes, kept only when re-serialising would not reproduce them. */
      backup: z.string().optional(),
    }),
    owned: z.array(z.strictObject({ at: z.array(z.string()), append: z.unknown() })),
    createdContainers: z.array(z.array(z.string())),
    createdDirs: dirs,
  }),
]);

const InstallRecordSchema = z.strictObject({
  schemaVersion: z.literal(1),
  adapters: z.record(
    z.string(),
    z.strictObject({
      plugin: z.string(),
      adapterId: z.string(),
      artifacts: z.array(Recorded),
      /** The client's ids of the trust records `install --trust-hooks` wrote; uninstall removes exactly these. */
      trusted: z.array(z.string()).optional(),
    }),
  ),
});

export type RecordedArtifact = z.output<typeof Recorded>;
export type InstallRecord = z.output<typeof InstallRecordSchema>;
export type AdapterRecord = InstallRecord["adapters"][string];

function emptyRecord(): InstallRecord {
  return { schemaVersion: 1, adapters: {} };
}

export function readRecord(file: string): InstallRecord {
  if (!existsSync(file)) return emptyRecord();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw pbError(
      "PB_ERR_INSTALL_RECORD_CORRUPT",
      `The install record ${file} is not valid JSON (${(err as Error).message}); nothing was changed.`,
      { file },
    );
  }
  if (
    raw &&
    typeof raw === "object" &&
    "schemaVersion" in raw &&
    (raw as { schemaVersion: unknown }).schemaVersion !== 1
  ) {
    throw pbError(
      "PB_ERR_INSTALL_RECORD_CORRUPT",
      `The install record ${file} has unknown schemaVersion ${JSON.stringify((raw as { schemaVersion: unknown }).schemaVersion)}; nothing was changed.`,
      { file },
    );
  }
  const parsed = InstallRecordSchema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 3)
      .map((i) => `/${i.path.join("/")}: ${i.message}`)
      .join("; ");
    throw pbError(
      "PB_ERR_INSTALL_RECORD_CORRUPT",
      `The install record ${file} is invalid (${detail}); nothing was changed.`,
      { file },
    );
  }
  return parsed.data;
}

/** Sorted keys, two spaces, final newline: the same record always has the same bytes. */
export function writeRecord(file: string, record: InstallRecord): void {
  const sorted = Object.fromEntries(
    Object.keys(record.adapters)
      .sort()
      .map((k) => [k, record.adapters[k]]),
  );
  writeFileAtomic(file, JSON.stringify({ schemaVersion: 1, adapters: sorted }, null, 2) + "\n", 0o600);
}
