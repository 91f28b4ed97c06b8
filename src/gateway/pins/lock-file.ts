/**
 * connectors.lock.json: the definitions the operator approved, beside connectors.json and meant to be
 * committed with it (like package-lock.json). Per instance, each tool's, prompt's and resource
 * template's pinned fields (canonical.ts) with their hash, so `patchbay pins diff` can show what
 * changed and a reviewer sees it in the commit; the upstream's serverInfo for information only.
 * Written whole and atomically, keys sorted, so the same approvals always give the same bytes.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../adapter/fs-atomic.js";
import { pbError } from "../../errors.js";
import { canonicalJson } from "./canonical.js";

export const LOCK_FILE_NAME = "connectors.lock.json";
export const LOCKFILE_VERSION = 1;
/** A lock past this is not read: 100 instances at the catalog's 1 MiB per instance fit with room to spare. */
const MAX_LOCK_BYTES = 256 * 1024 * 1024;

export const PIN_LISTS = ["tools", "prompts", "resourceTemplates"] as const;
export type PinList = (typeof PIN_LISTS)[number];

const Pinned = z.strictObject({
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  definition: z.record(z.string(), z.unknown()),
  /** Accepted with `pins accept --allow-hidden-text`: its hidden characters were seen and allowed. */
  allowHiddenText: z.literal(true).optional(),
});
export type PinnedDefinition = z.infer<typeof Pinned>;

const InstancePinsSchema = z.strictObject({
  server: z.strictObject({ name: z.string().optional(), version: z.string().optional() }).optional(),
  // A list absent has never been pinned (its first read is trusted); present, even empty, it has.
  tools: z.record(z.string(), Pinned).optional(),
  prompts: z.record(z.string(), Pinned).optional(),
  resourceTemplates: z.record(z.string(), Pinned).optional(),
});
export type InstancePins = z.infer<typeof InstancePinsSchema>;

const LockSchema = z.strictObject({
  lockfileVersion: z.literal(LOCKFILE_VERSION),
  _comment: z.string().optional(),
  instances: z.record(z.string(), InstancePinsSchema),
});
export type LockFile = z.infer<typeof LockSchema>;

/** Beside the config file; null when the config came as an object (pins then live in memory only). */
export function lockPathFor(configFile: string | null): string | null {
  return configFile ? path.join(path.dirname(configFile), LOCK_FILE_NAME) : null;
}

export function emptyLock(): LockFile {
  return { lockfileVersion: LOCKFILE_VERSION, instances: {} };
}

/** The lock, or null when there is none yet. A lock that cannot be read is an error, never "no pins". */
export function readLock(file: string): LockFile | null {
  if (!existsSync(file)) return null;
  const size = statSync(file).size;
  if (size > MAX_LOCK_BYTES)
    throw invalid(file, "", `it is ${size} bytes, more than the ${MAX_LOCK_BYTES} Patchbay reads`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw invalid(file, "", `it is not JSON (${(err as Error).message})`);
  }
  const parsed = LockSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const pointer = issue.path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
    throw invalid(file, pointer, issue.message);
  }
  return parsed.data;
}

/** Writes the lock whole (temp file and rename): a reader never sees half of it. */
export function writeLock(file: string, lock: LockFile): void {
  const out = {
    _comment:
      "Tool, prompt and resource template definitions approved for the gateway. Commit this file. Review changes with `patchbay pins diff`, approve them with `patchbay pins accept`.",
    lockfileVersion: LOCKFILE_VERSION,
    instances: lock.instances,
  };
  // Canonical order (sorted keys) gives stable bytes and small diffs; indented for people and reviews.
  writeFileAtomic(file, `${JSON.stringify(JSON.parse(canonicalJson(out)), null, 2)}\n`);
}

function invalid(file: string, pointer: string, why: string) {
  return pbError(
    "PB_ERR_PINS_LOCK_INVALID",
    `${file}${pointer ? ` at ${pointer}` : ""}: the lock file cannot be used: ${why}.`,
    { file, pointer },
  );
}
