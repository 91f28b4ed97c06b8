/**
 * What `patchbay pins diff|accept` and `status` read of the pins, the same from the running serve
 * (control socket) and from a boot of its own when none runs.
 */
import { pbError } from "../../errors.js";
import type { Host } from "../../host/api.js";
import { buildCatalog } from "../catalog.js";
import { lockPathFor } from "./lock-file.js";
import { PinBook, type PinDiff, type PinFinding } from "./pin-book.js";

export interface PinsReport {
  file: string | null;
  mode: string;
  /** Set when this process wrote the lock on first use. */
  firstUse: { at: number; instances: string[] } | null;
  diffs: PinDiff[];
}

/** For `status`: the mode, the lock, and every finding with its code (no diffs: those are for `pins diff`). */
export interface PinsStatus {
  file: string | null;
  mode: string;
  firstUse: { at: number; instances: string[] } | null;
  findings: PinFinding[];
}

export function pinsStatus(book: PinBook): PinsStatus {
  return { file: book.file, mode: book.mode, firstUse: book.firstUse, findings: book.list() };
}

export function pinsReport(book: PinBook, instance: string | null): PinsReport {
  return { file: book.file, mode: book.mode, firstUse: book.firstUse, diffs: book.diff(instance) };
}

/**
 * The pins of a host booted here (no serve runs): its lists read once and reviewed.
 * `readOnly`: never writes the lock.
 */
export async function pinsOfHost(host: Host, readOnly: boolean): Promise<PinBook> {
  const config = host.config;
  const book = new PinBook({
    file: lockPathFor(config?.file ?? null),
    pinning: config?.gateway.pinning ?? { default: "enforce", instances: {} },
    warn: () => undefined,
    say: () => undefined,
    readOnly,
  });
  await buildCatalog(host, config?.gateway.expose ?? {}, book);
  return book;
}

/** A pins-accept request's fields, checked (it may come from any process that can reach the control socket). */
export function acceptRequestOf(req: Record<string, unknown>): {
  instance: string;
  names: string[];
  allowHiddenText: boolean;
} {
  const { instance, names, allowHiddenText } = req;
  if (
    typeof instance !== "string" ||
    !Array.isArray(names) ||
    !names.every((n) => typeof n === "string") ||
    (allowHiddenText !== undefined && typeof allowHiddenText !== "boolean")
  ) {
    throw pbError(
      "PB_ERR_USAGE",
      "A pins-accept request needs instance (a string), names (an array of strings) and optionally allowHiddenText.",
    );
  }
  return { instance, names: names as string[], allowHiddenText: allowHiddenText === true };
}
