/**
 * Edits a user-owned JSON file by appending entries to arrays inside it, and undoes exactly that.
 * The file keeps its own formatting (indent and final newline are detected); when nothing needs
 * adding, the bytes are not touched at all, so installing twice equals installing once.
 *
 * Ownership: every entry the plan declares is Patchbay's, whether it was appended now or found
 * already there (a rerun after a crash between the write and the record finds its own entries).
 * Containers (objects/arrays on the way to an entry) that Patchbay had to create are recorded and
 * removed on uninstall only when empty, so a user's entry added to them survives.
 */
import { pbError } from "../../errors.js";

export interface MergeEntry {
  at: string[];
  append: unknown;
}

export interface JsonFormat {
  indent: string;
  newline: boolean;
}

export interface MergeResult {
  text: string;
  changed: boolean;
  /** Declared entries that were not there before. */
  added: MergeEntry[];
  /** Containers created on the way, as paths. */
  createdContainers: string[][];
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : x,
  );
export const jsonEqual = (a: unknown, b: unknown) => canonical(a) === canonical(b);

function detectFormat(text: string): JsonFormat {
  const m = /\n([ \t]+)\S/.exec(text);
  // An empty object tells nothing about style: give it the usual two spaces rather than one long line.
  return { indent: m ? m[1] : /^\s*\{\s*\}\s*$/.test(text) ? "  " : "", newline: text.endsWith("\n") };
}

function formatJson(value: unknown, format: JsonFormat): string {
  return JSON.stringify(value, null, format.indent) + (format.newline ? "\n" : "");
}
function parseJsonObject(text: string, file: string): Record<string, Json> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw pbError(
      "PB_ERR_INSTALL_CONFLICT",
      `${file} is not valid JSON (${(err as Error).message}); Patchbay edits only files it can parse.`,
      { file },
    );
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw pbError("PB_ERR_INSTALL_CONFLICT", `${file} does not hold a JSON object; Patchbay edits only JSON objects.`, {
      file,
    });
  }
  return value as Record<string, Json>;
}

/** Merges `entries` into `text` (null = the file does not exist). */
export function mergeJson(text: string | null, entries: readonly MergeEntry[], file: string): MergeResult {
  const root = text === null ? {} : parseJsonObject(text, file);
  const format = text === null ? { indent: "  ", newline: true } : detectFormat(text);
  const added: MergeEntry[] = [];
  const created: string[][] = [];
  for (const entry of entries) {
    let node: Record<string, Json> | Json[] = root;
    for (let i = 0; i < entry.at.length; i++) {
      const key = entry.at[i];
      const last = i === entry.at.length - 1;
      const obj = node as Record<string, Json>;
      if (Array.isArray(node)) throw conflict(file, entry.at.slice(0, i), "an array where an object was expected");
      if (!Object.hasOwn(obj, key)) {
        obj[key] = last ? [] : {};
        created.push(entry.at.slice(0, i + 1));
      }
      const next = obj[key];
      if (last ? !Array.isArray(next) : !next || typeof next !== "object" || Array.isArray(next)) {
        throw conflict(file, entry.at.slice(0, i + 1), last ? "not an array" : "not an object");
      }
      node = next as Record<string, Json> | Json[];
    }
    const list = node as Json[];
    if (!list.some((v) => jsonEqual(v, entry.append))) {
      list.push(structuredClone(entry.append) as Json);
      added.push(entry);
    }
  }
  const changed = text === null || added.length > 0;
  return { text: changed ? formatJson(root, format) : text, changed, added, createdContainers: created };
}

/**
 * Removes each owned entry (one deep-equal occurrence per entry) and every recorded container
 * that is now empty, deepest first. Returns the text unchanged when there is nothing to remove.
 */
export function unmergeJson(
  text: string,
  owned: readonly MergeEntry[],
  createdContainers: readonly string[][],
  file: string,
): { text: string; changed: boolean } {
  const root = parseJsonObject(text, file);
  let changed = false;
  for (const entry of owned) {
    const list = lookup(root, entry.at);
    if (!Array.isArray(list)) continue;
    const i = list.findIndex((v) => jsonEqual(v, entry.append));
    if (i >= 0) {
      list.splice(i, 1);
      changed = true;
    }
  }
  for (const at of [...createdContainers].sort((a, b) => b.length - a.length)) {
    const parent = at.length === 1 ? root : lookup(root, at.slice(0, -1));
    if (!parent || typeof parent !== "object" || Array.isArray(parent)) continue;
    const value = (parent as Record<string, Json>)[at[at.length - 1]];
    const empty = Array.isArray(value)
      ? value.length === 0
      : value && typeof value === "object"
        ? Object.keys(value).length === 0
        : false;
    if (empty) {
      delete (parent as Record<string, Json>)[at[at.length - 1]];
      changed = true;
    }
  }
  return { text: changed ? formatJson(root, detectFormat(text)) : text, changed };
}

function lookup(root: Json, at: readonly string[]): Json | undefined {
  let node: Json | undefined = root;
  for (const key of at) {
    if (!node || typeof node !== "object" || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, Json>)[key];
  }
  return node;
}

function conflict(file: string, at: string[], what: string) {
  return pbError(
    "PB_ERR_INSTALL_CONFLICT",
    `${file}: ${at.map((k) => `["${k}"]`).join("")} is ${what}; Patchbay will not overwrite it.`,
    { file, at },
  );
}
