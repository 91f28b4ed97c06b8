/**
 * Value-based secret scrubbing. Key-based redaction (pino `redact`) cannot catch a secret a
 * plugin logs under another name or puts in an error message, so every resolved secret value
 * is enumerated here and replaced wherever it appears in text we emit.
 */

import { CATALOGUE } from "./errors.js";

const SECRET_MARKER = "[REDACTED]";

/**
 * Words no secret may censor: a "secret" that occurs inside an error code or an
 * instance's name would let whoever supplies it hide who failed and why.
 */
const ALWAYS_PROTECTED: readonly string[] = Object.keys(CATALOGUE);

/**
 * Values shorter than this are not scrubbed: replacing "1" or "on" everywhere would destroy
 * every line while protecting nothing worth protecting.
 */
const MIN_SECRET_LENGTH = 4;

export class Scrubber {
  private readonly values = new Set<string>();
  private readonly protectedWords = new Set<string>(ALWAYS_PROTECTED);
  private pattern: RegExp | null = null;

  /** Words that must stay readable (instance ids, section and plugin names): a value inside one is never scrubbed. */
  protect(words: Iterable<string>): void {
    for (const w of words) if (w) this.protectedWords.add(w);
    for (const v of [...this.values]) if (this.isProtected(v)) this.values.delete(v);
    this.pattern = null;
  }

  private isProtected(value: string): boolean {
    for (const w of this.protectedWords) if (w.includes(value)) return true;
    return false;
  }

  add(value: unknown): void {
    if (
      typeof value !== "string" ||
      value.length < MIN_SECRET_LENGTH ||
      this.values.has(value) ||
      this.isProtected(value)
    )
      return;
    this.values.add(value);
    // JSON output escapes quotes and backslashes; scrub that spelling too.
    const escaped = JSON.stringify(value).slice(1, -1);
    if (escaped !== value) this.values.add(escaped);
    this.pattern = null;
  }

  addAll(values: Iterable<unknown>): void {
    for (const v of values) this.add(v);
  }

  /** Takes every secret another scrubber knows (the CLI's output scrubber absorbs the host's). */
  absorb(other: Scrubber): void {
    for (const w of other.protectedWords) this.protectedWords.add(w);
    for (const v of other.values) this.values.add(v);
    this.pattern = null;
  }

  get size(): number {
    return this.values.size;
  }

  scrub(text: string): string {
    if (this.values.size === 0 || text.length === 0) return text;
    this.pattern ??= new RegExp(
      // Longest first, so a secret that contains another is replaced whole.
      [...this.values]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join("|"),
      "g",
    );
    return text.replace(this.pattern, SECRET_MARKER);
  }

  /** Deep-scrub a JSON-like value (strings anywhere inside it). */
  scrubValue<T>(value: T): T {
    if (this.values.size === 0) return value;
    return scrubDeep(value, (s) => this.scrub(s)) as T;
  }
}

/**
 * Every string the operator wrote into an instance's config (after ${VAR}): the only values a
 * worker may name as secret. A plugin's default, or a forged value, is not among them, so a
 * plugin cannot steer the scrubber onto text it wants hidden. Iterative: configs may be deep.
 */
export function operatorStrings(config: unknown): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = [config];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") out.add(v);
    else if (Array.isArray(v)) stack.push(...v);
    else if (v && typeof v === "object") stack.push(...Object.values(v));
  }
  return out;
}

function scrubDeep(value: unknown, scrub: (s: string) => string): unknown {
  if (typeof value === "string") return scrub(value);
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, scrub));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = scrubDeep(v, scrub);
    return out;
  }
  return value;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
