/**
 * The pinned part of an upstream definition and its canonical JSON and hash. A pin must survive the
 * upstream re-serialising the same definition (key order, whitespace), so the hash is taken over a
 * canonical form rather than the bytes received. Pure: no I/O; the gateway hashes every definition of
 * every instance on each check, so the canonicaliser is written for speed: one walk writing parts that are
 * joined once, no JSON round trip, and native JSON.stringify only for the strings that need escaping.
 */
import * as crypto from "node:crypto";

export type DefinitionKind = "tool" | "prompt" | "resourceTemplate";

/**
 * Which fields of each kind are pinned: what reaches a model's context. A tool's name is the lock's key
 * (not part of its hash); `_meta` and `icons` are display or transport data an upstream may vary freely.
 * Each list is in code-point order, so the insertion sort below finds the picked object's keys in order.
 */
const PINNED: Record<DefinitionKind, readonly string[]> = {
  tool: ["annotations", "description", "inputSchema", "outputSchema", "title"],
  prompt: ["arguments", "description", "title"],
  resourceTemplate: ["description", "mimeType", "title", "uriTemplate"],
};

/** The fields of a definition that are pinned, picked from an upstream descriptor (unknown input: any JSON). */
export function pinnedFields(kind: DefinitionKind, def: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  if (def === null || typeof def !== "object") return picked;
  for (const field of PINNED[kind]) {
    // Own properties only: a descriptor is parsed JSON, and an inherited `description` is not the upstream's.
    if (!Object.hasOwn(def, field)) continue;
    const value = def[field];
    if (value !== undefined) picked[field] = value;
  }
  return picked;
}

/** Nesting deeper than this is refused: real schemas stay far below it, and a hostile one cannot blow the stack. */
const MAX_DEPTH = 64;

/** Any UTF-16 surrogate: only a string holding one can order differently by code unit and by code point. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** Code-point order of two strings (`<` on strings compares UTF-16 code units). */
function byCodePoint(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/** Above this many keys the insertion sort's O(n²) would let an upstream's huge object stall the gateway. */
const INSERTION_SORT_MAX = 24;

/**
 * Keys in code-unit order. Insertion sort for the small objects that make up a schema (a handful of keys,
 * often already in order): measured several times faster there than Array.prototype.sort, with or without
 * a comparator; a bigger object gets the O(n log n) sort.
 */
function codeUnitSorted(keys: string[]): string[] {
  if (keys.length > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

const codePointSorted = (keys: string[]): string[] => keys.sort(byCodePoint);

/**
 * Each key's `"key":` text, kept across calls: schemas repeat a few keys (type, description, properties) in
 * every tool, and a lookup measured about 20% faster than quoting each again. Bounded in entries and key
 * length, so an upstream's odd keys cost it no memory; once full it only stops adding.
 */
const KEY_TEXT = new Map<string, string>();
const KEY_TEXT_MAX = 4096;
const KEY_TEXT_MAX_LENGTH = 64;

/** What JSON drops from an object and writes as null in an array. */
function dropped(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

/**
 * Appends the canonical text of `v` to `out` (one join at the end is cheaper than a rope of concatenations
 * that hashing must flatten). `v` is never of a dropped type. Depth is counted, not cycles: a cycle always
 * passes the depth bound, and only then is the value examined for one, so acyclic input pays nothing.
 */
function write(v: unknown, out: string[], depth: number, sorted: (keys: string[]) => string[]): void {
  switch (typeof v) {
    case "string":
      out.push(quote(v));
      return;
    case "number":
      // JSON's own rule: finite numbers in their shortest round-trip form, NaN and the infinities as null.
      out.push(Number.isFinite(v) ? String(v) : "null");
      return;
    case "boolean":
      out.push(v ? "true" : "false");
      return;
    case "bigint":
      throw new Error("canonicalJson: a bigint has no JSON form");
  }
  if (v === null) {
    out.push("null");
    return;
  }
  if (depth >= MAX_DEPTH) throw new DepthExceeded();
  if (Array.isArray(v)) {
    out.push("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(",");
      const item = v[i];
      if (dropped(item)) out.push("null");
      else write(item, out, depth + 1, sorted);
    }
    out.push("]");
    return;
  }
  const o = v as Record<string, unknown>;
  const keys = sorted(Object.keys(o));
  out.push("{");
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const value = o[k];
    if (dropped(value)) continue;
    let member = KEY_TEXT.get(k);
    if (member === undefined) {
      member = quote(k) + ":";
      if (KEY_TEXT.size < KEY_TEXT_MAX && k.length <= KEY_TEXT_MAX_LENGTH) KEY_TEXT.set(k, member);
    }
    out.push(first ? member : "," + member);
    first = false;
    write(value, out, depth + 1, sorted);
  }
  out.push("}");
}

/** The canonical text of `v` with keys ordered by `sorted`. */
function written(v: unknown, sorted: (keys: string[]) => string[]): string {
  if (dropped(v)) return "null";
  const out: string[] = [];
  write(v, out, 0, sorted);
  return out.join("");
}

/** What JSON.stringify escapes in a string: quote, backslash, C0 controls, and (lone) surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001F\uD800-\uDFFF]/;

/** JSON.stringify of a string, skipping its call for the common string that needs no escape. */
function quote(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"';
}

class DepthExceeded extends Error {}

/**
 * True when `v` reaches itself. Runs only on refused input (past the depth bound). `cleared` holds values
 * already walked without finding one, so shared subtrees (a DAG) are walked once, not once per path.
 */
function hasCycle(v: unknown, ancestors: Set<unknown>, cleared: Set<unknown>): boolean {
  if (v === null || typeof v !== "object" || cleared.has(v)) return false;
  if (ancestors.has(v)) return true;
  ancestors.add(v);
  for (const child of Object.values(v)) if (hasCycle(child, ancestors, cleared)) return true;
  ancestors.delete(v);
  cleared.add(v);
  return false;
}

/**
 * Canonical JSON: object keys sorted by code point at every depth, no whitespace, arrays in order,
 * numbers as JSON.stringify gives them, undefined-valued keys dropped (as JSON does). Stable across key
 * order and whitespace of the input. Throws a plain Error on a cycle or a depth over 64.
 */
export function canonicalJson(value: unknown): string {
  try {
    const text = written(value, codeUnitSorted);
    // Code-unit and code-point order differ only where a surrogate meets U+E000–U+FFFF. One test over the
    // output (a key's surrogate shows there: JSON.stringify keeps paired surrogates) is far cheaper than a
    // test per key; the rare text with one is written again with the code-point sort.
    return SURROGATE.test(text) ? written(value, codePointSorted) : text;
  } catch (error) {
    if (!(error instanceof DepthExceeded)) throw error;
    throw new Error(
      hasCycle(value, new Set(), new Set())
        ? "canonicalJson: the value holds a cycle"
        : `canonicalJson: nesting deeper than ${MAX_DEPTH} levels`,
    );
  }
}

// crypto.hash (Node ≥ 20.12) allocates no Hash object; for the 1–2 KB texts hashed here it measured level
// with createHash in CPU time (SHA-256 itself dominates), with less garbage per definition.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;
const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot("sha256", text, "hex")
  : (text) => crypto.createHash("sha256").update(text).digest("hex");

/** "sha256:<64 hex>" of canonicalJson(pinnedFields(kind, def)). */
export function definitionHash(kind: DefinitionKind, def: Record<string, unknown>): string {
  return "sha256:" + sha256Hex(canonicalJson(pinnedFields(kind, def)));
}
