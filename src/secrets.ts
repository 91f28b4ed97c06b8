/**
 * Value-based secret scrubbing. Key-based redaction (pino `redact`) cannot catch a secret a
 * plugin logs under another name or puts in an error message, so every resolved secret value
 * is enumerated here and replaced wherever it appears in text we emit.
 */

export const SECRET_MARKER = "[REDACTED]";

/**
 * Values shorter than this are not scrubbed: replacing "1" or "on" everywhere would destroy
 * every line while protecting nothing worth protecting.
 */
const MIN_SECRET_LENGTH = 4;

export class Scrubber {
  private readonly values = new Set<string>();
  private pattern: RegExp | null = null;

  add(value: unknown): void {
    if (typeof value !== "string" || value.length < MIN_SECRET_LENGTH || this.values.has(value)) return;
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
      [...this.values].sort((a, b) => b.length - a.length).map(escapeRegExp).join("|"),
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
