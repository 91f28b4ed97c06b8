/**
 * What changed between a pinned definition and the one an upstream serves now, for a person deciding
 * whether to accept it (`pins diff`) and for the one-line reason in a drift error. Pure: no I/O. Inputs are
 * untrusted upstream JSON: every walk is bounded (depth, change count, clipped texts, word-diff size).
 */
import { canonicalJson, type DefinitionKind, pinnedFields } from "./canonical.js";
import { revealHidden } from "./hidden-text.js";

export interface DefinitionChange {
  /** JSON pointer of what changed inside the pinned fields ("/description", "/inputSchema/properties/notes"). */
  pointer: string;
  change: "added" | "removed" | "changed";
  /**
   * String values: the text itself (hidden code points shown as <U+XXXX>); other values: their canonical
   * JSON (hidden code points shown too). Each clipped to 2,000 chars.
   */
  before?: string;
  after?: string;
  /** A changed string value only: the word diff of before and after (wordDiff), clipped to 2,000 chars. */
  words?: string;
}

const MAX_CHANGES = 200;
const MAX_TEXT = 2000;
/** As canonicalJson: deeper values are compared whole rather than walked. */
const MAX_DEPTH = 64;
const MAX_WORDS = 20_000;
/**
 * The most edits the word diff looks for. Myers costs O((N+M)·D) time and keeps O(D²) for the way back;
 * beyond this bound the changed middle is shown whole, which a person reads as well as a diff that size.
 */
const MAX_EDITS = 1000;

function clip(text: string): string {
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) + "…" : text;
}

/** Text of one value for a person: strings as themselves, anything else as canonical JSON; never throws. */
function shown(value: unknown): string {
  if (typeof value === "string") return clip(revealHidden(value));
  let json: string;
  try {
    json = canonicalJson(value);
  } catch (error) {
    json = `(not JSON: ${(error as Error).message})`;
  }
  return revealHidden(clip(json));
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

function escapeSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

class Differ {
  readonly changes: DefinitionChange[] = [];

  private push(change: DefinitionChange): boolean {
    if (this.changes.length >= MAX_CHANGES) return false;
    this.changes.push(change);
    return true;
  }

  /** Compares `a` and `b` found at `pointer`; false once the change cap is reached (the walk stops). */
  compare(pointer: string, a: unknown, b: unknown, depth: number): boolean {
    if (a === b) return true;
    if (depth < MAX_DEPTH && isObject(a) && isObject(b)) {
      for (const key of Object.keys(a)) {
        const at = pointer + "/" + escapeSegment(key);
        const ok = Object.hasOwn(b, key)
          ? this.compare(at, a[key], b[key], depth + 1)
          : this.push({ pointer: at, change: "removed", before: shown(a[key]) });
        if (!ok) return false;
      }
      for (const key of Object.keys(b)) {
        if (Object.hasOwn(a, key)) continue;
        if (!this.push({ pointer: pointer + "/" + escapeSegment(key), change: "added", after: shown(b[key]) }))
          return false;
      }
      return true;
    }
    if (depth < MAX_DEPTH && Array.isArray(a) && Array.isArray(b)) {
      const common = Math.min(a.length, b.length);
      for (let i = 0; i < common; i++) if (!this.compare(pointer + "/" + i, a[i], b[i], depth + 1)) return false;
      for (let i = common; i < a.length; i++)
        if (!this.push({ pointer: pointer + "/" + i, change: "removed", before: shown(a[i]) })) return false;
      for (let i = common; i < b.length; i++)
        if (!this.push({ pointer: pointer + "/" + i, change: "added", after: shown(b[i]) })) return false;
      return true;
    }
    if (typeof a === "string" && typeof b === "string")
      return this.push({ pointer, change: "changed", before: shown(a), after: shown(b), words: clip(wordDiff(a, b)) });
    // Different types, numbers, booleans, or values past the depth bound: equal when their whole canonical
    // forms are (never the clipped texts shown: "1" and 1, or two long arrays alike in their first 2,000
    // characters, must not pass as equal). A value canonicalJson refuses equals nothing but itself.
    if (sameJson(a, b)) return true;
    return this.push({ pointer, change: "changed", before: shown(a), after: shown(b) });
  }
}

/**
 * Structural diff of two definitions' pinned fields, by JSON pointer (RFC 6901 escaping of ~ and /), object
 * keys compared as sets, arrays compared by index. At most 200 changes.
 */
export function diffDefinitions(
  kind: DefinitionKind,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): DefinitionChange[] {
  const differ = new Differ();
  differ.compare("", pinnedFields(kind, before), pinnedFields(kind, after), 0);
  return differ.changes;
}

/** Words and the whitespace between them, alternating, so the diff keeps the text's own spacing. */
function tokens(text: string): string[] {
  return text.split(/(\s+)/).filter((t) => t !== "");
}

type Op = 0 | 1 | 2; // keep, delete (from before), insert (from after)

/**
 * Myers' O((N+M)·D) shortest edit script between token lists; undefined when more than MAX_EDITS edits
 * are needed. Returns the operations in order.
 */
function editScript(a: string[], b: string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m, d);
    }
  }
  return undefined;
}

/** Walks the saved frontiers back from (n, m): trace[d] holds v[k] for k in -d-1..d+1 at index k + d + 1. */
function backtrack(trace: Int32Array[], n: number, m: number, dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const prev = trace[d]; // the frontier as it stood when step d began (after step d - 1)
    const at = (k: number) => prev[k + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(0);
      x--;
      y--;
    }
    ops.push(down ? 2 : 1);
    if (down) y--;
    else x--;
  }
  while (x > 0 && y > 0) {
    ops.push(0);
    x--;
    y--;
  }
  return ops.reverse();
}

/**
 * Word-level diff of two strings for a person: "[-old words-]{+new words+}" markers, hidden code points
 * revealed as <U+XXXX> in both. The common head and tail are cut first (most edits are local); inputs over
 * 20,000 words, or a middle needing more than 1,000 edits, show the changed middle whole.
 */
export function wordDiff(before: string, after: string): string {
  const a = tokens(revealHidden(before));
  const b = tokens(revealHidden(after));
  if (a.length > MAX_WORDS || b.length > MAX_WORDS) return runs(a, b, undefined, 0, 0, 0);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops = editScript(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  return runs(a, b, ops, head, tail, head);
}

/** Renders the script: the head, each run of deletes/inserts in markers, the tail; no script: all changed. */
function runs(a: string[], b: string[], ops: Op[] | undefined, head: number, tail: number, start: number): string {
  let out = a.slice(0, head).join("");
  let x = start;
  let y = start;
  let del = "";
  let ins = "";
  const flush = () => {
    if (del) out += "[-" + del + "-]";
    if (ins) out += "{+" + ins + "+}";
    del = "";
    ins = "";
  };
  if (ops === undefined) {
    del = a.slice(head, a.length - tail).join("");
    ins = b.slice(head, b.length - tail).join("");
  } else {
    for (const op of ops) {
      if (op === 0) {
        flush();
        out += a[x++];
        y++;
      } else if (op === 1) del += a[x++];
      else ins += b[y++];
    }
  }
  flush();
  return out + a.slice(a.length - tail).join("");
}

/** One line summarising changes for an error message: "description changed; inputSchema: /properties/notes added". */
export function summarizeChanges(changes: DefinitionChange[]): string {
  const SHOWN = 8;
  const groups = new Map<string, string[]>();
  for (const c of changes.slice(0, SHOWN)) {
    // The first segment is a pinned field name (never escaped: none holds ~ or /); the rest is within it.
    const slash = c.pointer.indexOf("/", 1);
    const field = slash === -1 ? c.pointer.slice(1) : c.pointer.slice(1, slash);
    const inner = slash === -1 ? "" : c.pointer.slice(slash);
    const list = groups.get(field) ?? [];
    list.push(inner ? `${inner} ${c.change}` : c.change);
    groups.set(field, list);
  }
  const parts = [...groups].map(([field, list]) =>
    list.length === 1 && !list[0].startsWith("/") ? `${field} ${list[0]}` : `${field}: ${list.join(", ")}`,
  );
  if (changes.length > SHOWN) parts.push(`${changes.length - SHOWN} more changes`);
  return parts.length === 0 ? "no change" : parts.join("; ");
}
