/**
 * A limit on how many entries connectors.json may hold, checked right after parsing, before any
 * stage walks them. Every later stage is linear, but a 10 MB file of 180,000 instances still cost
 * minutes of schema checks, plan errors and report lines before the operator got an answer. No
 * host runs that many workers (each instance is a thread or a process), so past the limit the
 * answer is immediate and says what to do.
 */
import { SECTIONS } from "../contract/kinds.js";
import { pbError } from "../errors.js";

export const MAX_INSTANCES = 10_000;
export const MAX_ALIASES = 10_000;

/** Throws PB_ERR_CONFIG_TOO_LARGE, naming the counts and the largest section, past either limit. */
export function assertConfigSize(raw: unknown, file: string | null): void {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return;
  let instances = 0;
  let aliases = 0;
  let largest: { section: string; count: number } | null = null;
  for (const section of SECTIONS) {
    const entries = (raw as Record<string, unknown>)[section];
    if (typeof entries !== "object" || entries === null || Array.isArray(entries)) continue;
    let count = 0;
    for (const key in entries) {
      if (!Object.hasOwn(entries, key)) continue;
      count++;
      if (typeof (entries as Record<string, unknown>)[key] === "string") aliases++;
      else instances++;
    }
    if (!largest || count > largest.count) largest = { section, count };
  }
  if (instances <= MAX_INSTANCES && aliases <= MAX_ALIASES) return;
  const what =
    instances > MAX_INSTANCES
      ? `${instances} instances (at most ${MAX_INSTANCES})`
      : `${aliases} aliases (at most ${MAX_ALIASES})`;
  throw pbError(
    "PB_ERR_CONFIG_TOO_LARGE",
    `${file ?? "The config"} defines ${what}; the largest section is /${largest?.section} with ${largest?.count} entries.`,
    {
      file,
      pointer: `/${largest?.section}`,
      instances,
      aliases,
      max_instances: MAX_INSTANCES,
      max_aliases: MAX_ALIASES,
    },
  );
}
