/**
 * Comment lines in src/ are at most 120 columns, the width Biome gives code: Biome wraps code but
 * never a comment, so a long one stays long until someone wraps it by hand. Comments are found by
 * TypeScript's own scanner (a `//` inside a string or a template is not one); a line counts when
 * any part of a comment is on it and the whole line is wider than 120.
 */
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { srcFiles } from "./_src-tree.js";

const MAX_COLUMNS = 120;

/**
 * Files whose long comments are left for now, each with a change that owns it: none left. Delete an
 * entry once its file is wrapped (the last test fails on an entry with nothing left to wrap, so the
 * list only shrinks).
 */
const ALLOWED_FILES: readonly string[] = [];

/** Every comment of `text`: its start and end offsets. */
function commentRanges(text: string, fileName: string): ts.CommentRange[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(source);
    if (children.length === 0) {
      // A token's leading ranges start after a line break; what follows it on its own line is trailing.
      for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) found.set(range.pos, range);
      for (const range of ts.getTrailingCommentRanges(text, node.end) ?? []) found.set(range.pos, range);
      return;
    }
    for (const child of children) visit(child);
  };
  visit(source);
  return [...found.values()];
}

/** The 1-based numbers and widths of the lines of `text` wider than MAX_COLUMNS that hold a comment. */
function longCommentLines(text: string, fileName: string): { line: number; width: number }[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const lines = text.split("\n");
  const long = new Set<number>();
  for (const range of commentRanges(text, fileName)) {
    for (let l = lineOf(range.pos); l <= lineOf(range.end - 1); l++) {
      if (lines[l].replace(/\r$/, "").length > MAX_COLUMNS) long.add(l);
    }
  }
  return [...long].sort((a, b) => a - b).map((l) => ({ line: l + 1, width: lines[l].length }));
}

describe("comment width in src/", () => {
  const byFile = new Map([...srcFiles()].map(([f, text]) => [f, longCommentLines(text, f)] as const));

  it("reads the real tree", () => {
    expect(byFile.size).toBeGreaterThan(100);
  });

  it(`has no comment line over ${MAX_COLUMNS} columns outside the allowlist`, () => {
    const report = [...byFile]
      .filter(([file]) => !ALLOWED_FILES.includes(file))
      .flatMap(([file, lines]) => lines.map((l) => `src/${file}:${l.line} (${l.width} columns)`));
    expect(report, "wrap these comments at 120 columns (Biome does not)").toEqual([]);
  });

  it("allows only files that still have a long comment line", () => {
    const stale = ALLOWED_FILES.filter((f) => (byFile.get(f) ?? []).length === 0);
    expect(stale, "ALLOWED_FILES entries with nothing left to wrap (or gone): delete them").toEqual([]);
  });

  it("finds long line, block and JSDoc comments and trailing ones, not `//` in strings or templates", () => {
    const wide = "x".repeat(MAX_COLUMNS);
    const planted = [
      `// ${wide}`, // 1: a line comment
      "/**",
      ` * ${wide}`, // 3: inside a JSDoc block
      " */",
      `const a = 1; // ${wide}`, // 5: trailing
      `const b = "// ${wide}";`, // 6: a string, not a comment
      `const c = \`\${a} // ${wide}\`;`, // 7: a template, not a comment
      `/* ${wide} */ const d = 2;`, // 8: a block before code
      `// ${"y".repeat(MAX_COLUMNS - 3)}`, // 9: exactly 120 columns: allowed
      "function f() {",
      `  return a; /* short */ // ${wide}`, // 11: two comments on one line: counted once
      "}",
    ].join("\n");
    expect(longCommentLines(planted, "planted.ts").map((l) => l.line)).toEqual([1, 3, 5, 8, 11]);
  });
});
