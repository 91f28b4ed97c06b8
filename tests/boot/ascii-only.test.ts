/**
 * scripts/ascii-only.mjs writes each non-ASCII character of the runtime bundle as its escape, so
 * V8 keeps the bundle's source one byte per character. An escape must mean the same character
 * wherever the character was; where it would not, the build fails instead.
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error a build script, plain JavaScript without types
import { escapeNonAscii } from "../../scripts/ascii-only.mjs";

const toAscii = escapeNonAscii as (code: string, file?: string) => string;

/** What a piece of code evaluates to. */
const run = (code: string): unknown => new Function(`return (${code});`)();

describe("escapeNonAscii", () => {
  it("leaves ASCII code as it is", () => {
    const code = 'const a = "x"; // plain';
    expect(toAscii(code)).toBe(code);
  });

  it("keeps the value of strings, templates, regular expressions and astral characters", () => {
    for (const code of [
      '"a — b ✖ →"',
      "`at ${1 + 1} → …`",
      '/[—→]/.test("→")',
      '/^✖$/u.test("✖")',
      '"😀".codePointAt(0)',
      '/😀/u.test("😀")',
      '"é".length',
    ]) {
      const escaped = toAscii(code);
      expect(/[^\x00-\x7f]/.test(escaped)).toBe(false);
      expect(run(escaped)).toEqual(run(code));
    }
  });

  it("escapes inside comments too, harmlessly", () => {
    const escaped = toAscii("/* a — b */ 1 // ✖\n");
    expect(escaped).toBe("/* a \\u2014 b */ 1 // \\u2716\n");
    expect(run(escaped)).toBe(1);
  });

  it("refuses what an escape would change: a backslash before the character, String.raw", () => {
    expect(() => toAscii('"\\—"')).toThrow(/backslash/);
    expect(() => toAscii("String.raw`—`")).toThrow(/String\.raw/);
  });
});
