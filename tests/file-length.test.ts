/**
 * A file in src/ holds one responsibility, which fits in about 300 lines. A longer one says why it is
 * one file on its first line, as a `//` comment of its own above the module's doc block (e.g. the error
 * catalogue: one table, so every code is seen at once), so the length is a decision, not drift.
 */
import { describe, expect, it } from "vitest";
import { srcFiles } from "./_src-tree.js";

const MAX_LINES = 300;

/**
 * Long files another change owns, which it will split or give their first line. Delete an entry
 * once its file is short or says why (the last test fails on such an entry, so the list only shrinks).
 */
const ALLOWED_FILES: readonly string[] = [];

/** Why `text` may be long: its first line is a `//` comment, or null when it is not. */
function firstLineWhy(text: string): string | null {
  const first = text.split("\n", 1)[0].trim();
  return /^\/\/\s*\S/.test(first) ? first : null;
}

const lineCount = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

/** The files of `files` over MAX_LINES without a first-line why, as "path (N lines)". */
function unexplained(files: ReadonlyMap<string, string>): string[] {
  return [...files]
    .filter(([, text]) => lineCount(text) > MAX_LINES && firstLineWhy(text) === null)
    .map(([file, text]) => `src/${file} (${lineCount(text)} lines)`);
}

describe(`files over ${MAX_LINES} lines in src/`, () => {
  const files = srcFiles();

  it("reads the real tree", () => {
    expect(files.size).toBeGreaterThan(100);
  });

  it("each says on its first line why it is one file", () => {
    const report = unexplained(files).filter((f) => !ALLOWED_FILES.some((a) => f.startsWith(`src/${a} `)));
    expect(report, "split these by responsibility, or give each a first-line // comment saying why not").toEqual([]);
  });

  it("allows only files that are still long and unexplained", () => {
    const stale = ALLOWED_FILES.filter((f) => !unexplained(files).some((u) => u.startsWith(`src/${f} `)));
    expect(stale, "ALLOWED_FILES entries now short or explained (or gone): delete them").toEqual([]);
  });

  it("counts lines as an editor does and takes only a // first line as the why", () => {
    const long = (first: string) => `${first}\n${"x;\n".repeat(MAX_LINES)}`;
    const planted = new Map([
      ["short.ts", "x;\n".repeat(MAX_LINES)],
      ["doc-block.ts", long("/** A module doc block is not a why. */")],
      ["why.ts", long("// One table on purpose: split, it would hide a reused code.")],
      ["empty-why.ts", long("//")],
    ]);
    expect(lineCount(planted.get("short.ts")!)).toBe(MAX_LINES);
    expect(unexplained(planted)).toEqual([
      `src/doc-block.ts (${MAX_LINES + 1} lines)`,
      `src/empty-why.ts (${MAX_LINES + 1} lines)`,
    ]);
  });
});
