/**
 * Text in a definition that a model reads and a person reviewing it does not see: Unicode tag characters
 * (which can spell a whole instruction invisibly), zero-width and other invisible format characters, bidi
 * controls (which reorder what is shown), C0/C1 controls (ANSI escapes hide text in a terminal) and HTML
 * comments (Markdown renderers drop them). Pure: no I/O. Every string is tested with one regex first, so a
 * clean definition costs one regex test per string; only a string that matches is walked character by
 * character to name each position.
 */

export interface HiddenTextFinding {
  /** JSON pointer inside the pinned definition, e.g. "/description" or "/inputSchema/properties/notes/description". */
  pointer: string;
  /** Code-point index (not UTF-16 index) within that string. */
  position: number;
  /** e.g. "U+E0041" */
  codePoint: string;
  kind: "tag" | "zero-width" | "bidi" | "control" | "html-comment";
  /**
   * Set when the string is a property NAME (the last segment of `pointer`) rather than the value there: a
   * hidden character in a schema's property name reaches the model as surely as one in a description.
   */
  inName?: true;
}

/** At most this many findings per definition: enough to act on, and a flood of them cannot cost memory. */
const MAX_FINDINGS = 100;
/** Nesting deeper than this is refused, as canonicalJson refuses it: a hostile value cannot blow the stack. */
const MAX_DEPTH = 64;

// One class for every hidden code point, without the `u` flag (faster in V8): astral ranges are written as
// surrogate pairs. Tags U+E0000–E007F are \uDB40\uDC00–\uDC7F; variation selectors U+E0100–E01EF are
// \uDB40\uDD00–\uDDEF. C0 controls except \t \n \r, DEL and C1; then `<!--`, which opens an HTML comment
// (flagged even when unclosed: CommonMark hides an unclosed comment to the end of the document).
const HIDDEN_CLASS =
  "[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u061C\\u115F\\u1160\\u180E" +
  "\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0]" +
  "|\\uDB40[\\uDC00-\\uDC7F\\uDD00-\\uDDEF]";
const ANY_HIDDEN = new RegExp(HIDDEN_CLASS + "|<!--");
const EACH_HIDDEN_CODE_POINT = new RegExp(HIDDEN_CLASS, "g");

type Kind = HiddenTextFinding["kind"];

/** The kind of one code point, or undefined when it is visible (or \t \n \r). */
function kindOf(cp: number): Kind | undefined {
  if (cp < 0x20) return cp === 0x09 || cp === 0x0a || cp === 0x0d ? undefined : "control";
  if (cp < 0x7f) return undefined;
  if (cp <= 0x9f) return "control";
  if (cp >= 0xe0000 && cp <= 0xe007f) return "tag";
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x061c) return "bidi";
  if (
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xe0100 && cp <= 0xe01ef) ||
    cp === 0xfeff ||
    cp === 0x180e ||
    cp === 0x00ad ||
    cp === 0x034f ||
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x3164 ||
    cp === 0xffa0
  )
    return "zero-width";
  return undefined;
}

function codePointLabel(cp: number): string {
  return "U+" + cp.toString(16).toUpperCase().padStart(4, "0");
}

/** RFC 6901: "~" → "~0", "/" → "~1". */
function pointerOf(path: string[]): string {
  let out = "";
  for (const seg of path) out += "/" + seg.replace(/~/g, "~0").replace(/\//g, "~1");
  return out;
}

class Scan {
  readonly findings: HiddenTextFinding[] = [];
  truncated = false;
  private readonly path: string[] = [];

  /** False once the cap is passed: the walk stops there. */
  get open(): boolean {
    return !this.truncated;
  }

  visit(value: unknown): void {
    if (typeof value === "string") {
      if (ANY_HIDDEN.test(value)) this.walkString(value, false);
      return;
    }
    if (value === null || typeof value !== "object") return;
    if (this.path.length >= MAX_DEPTH) throw new Error(`findHiddenText: nesting deeper than ${MAX_DEPTH} levels`);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length && this.open; i++) {
        this.path.push(String(i));
        this.visit(value[i]);
        this.path.pop();
      }
      return;
    }
    for (const key of Object.keys(value)) {
      if (!this.open) return;
      this.path.push(key);
      if (ANY_HIDDEN.test(key)) this.walkString(key, true);
      this.visit((value as Record<string, unknown>)[key]);
      this.path.pop();
    }
  }

  /** Names every hidden code point of `s` (and each `<!--`) by its code-point index. */
  private walkString(s: string, inName: boolean): void {
    let pointer: string | undefined;
    let position = 0;
    for (let i = 0; i < s.length; position++) {
      const cp = s.codePointAt(i)!;
      const kind = cp === 0x3c ? (s.startsWith("<!--", i) ? "html-comment" : undefined) : kindOf(cp);
      if (kind !== undefined) {
        if (this.findings.length === MAX_FINDINGS) {
          this.truncated = true;
          return;
        }
        pointer ??= pointerOf(this.path);
        const finding: HiddenTextFinding = { pointer, position, codePoint: codePointLabel(cp), kind };
        if (inName) finding.inName = true;
        this.findings.push(finding);
      }
      i += cp > 0xffff ? 2 : 1;
    }
  }
}

/**
 * Every string in the definition (descriptions, titles, enum values, property NAMES too) scanned for text a
 * person does not see but a model reads. Returns at most 100 findings; `truncated` says there were more.
 * Throws a plain Error on nesting deeper than 64 (which canonicalJson refuses too).
 */
export function findHiddenText(def: unknown): { findings: HiddenTextFinding[]; truncated: boolean } {
  const scan = new Scan();
  scan.visit(def);
  return { findings: scan.findings, truncated: scan.truncated };
}

/** The text with each hidden code point shown as <U+XXXX> (for `pins diff` and messages); visible text unchanged. */
export function revealHidden(text: string): string {
  if (!ANY_HIDDEN.test(text)) return text;
  return text.replace(EACH_HIDDEN_CODE_POINT, (ch) => "<" + codePointLabel(ch.codePointAt(0)!) + ">");
}

/**
 * Decodes the tag characters in `text` to the ASCII they spell (U+E0041 → "A"), for messages: "tag
 * characters spell: ...". Other characters, and the tags with no printable ASCII twin (U+E0001 LANGUAGE
 * TAG, U+E007F CANCEL TAG, U+E0000–E001F), are skipped.
 */
export function decodeTagRun(text: string): string {
  let out = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xe0020 && cp <= 0xe007e) out += String.fromCharCode(cp - 0xe0000);
  }
  return out;
}
