// The result size bound decides exactly as JSON.stringify(result).length > max would, and builds
// the JSON only when the cheap bounds cannot tell.
import { afterEach, expect, it, vi } from "vitest";
import { jsonLengthOver } from "../src/result-size.js";

const exact = (v: unknown, max: number) => {
  const n = JSON.stringify(v).length;
  return n > max ? n : null;
};

const samples: unknown[] = [
  { content: [{ type: "text", text: "hi" }] },
  { content: [{ type: "text", text: 'quotes " and \\ backslashes\n\t and \u0001 controls' }], isError: true },
  {
    content: [{ type: "text", text: "ünïcødé 😀 and a lone \ud800 surrogate" }],
    structuredContent: { n: -1.7976931348623157e308, f: 0.1, nan: NaN, inf: -Infinity, ok: false, none: null },
  },
  { content: [], skipped: undefined, fn: () => 1, list: [undefined, () => 1, 1, "x", [], {}] },
  {
    content: [{ type: "resource", resource: { uri: "file:///a", text: "x".repeat(5000) } }],
    _meta: { when: new Date(0) },
  },
  [[[[["deep"]]]]],
  Object.assign(Object.create(null), { a: "b" }),
  "just a string",
  42,
];

afterEach(() => vi.restoreAllMocks());

it("agrees with JSON.stringify's length at, just under and just over every limit", () => {
  for (const v of samples) {
    const n = JSON.stringify(v).length;
    for (const max of [0, 1, Math.floor(n / 6), Math.floor(n / 2), n - 1, n, n + 1, 6 * n + 10, 8 * 1024 * 1024]) {
      expect(jsonLengthOver(v, max), `${JSON.stringify(v).slice(0, 40)} at ${max}`).toBe(exact(v, max));
    }
  }
});

it("measures escapes exactly when the bounds cannot decide", () => {
  const escapes = { text: '"'.repeat(1000) + "\u0000".repeat(1000) };
  const n = JSON.stringify(escapes).length; // about 8000: every character escaped
  expect(jsonLengthOver(escapes, n)).toBeNull();
  expect(jsonLengthOver(escapes, n - 1)).toBe(n);
});

it("does not build the JSON of a result well within the limit, nor of one far over it", () => {
  const spy = vi.spyOn(JSON, "stringify");
  expect(jsonLengthOver({ content: [{ type: "text", text: "x".repeat(200_000) }] }, 8 * 1024 * 1024)).toBeNull();
  expect(spy).not.toHaveBeenCalled();
  // Over: the exact length is still given (for the error message).
  const big = { content: [{ type: "text", text: "x".repeat(2_000) }] };
  expect(jsonLengthOver(big, 100)).toBe(JSON.stringify(big).length);
});

it("leaves what is not plain JSON data to JSON.stringify", () => {
  expect(() => jsonLengthOver({ n: 1n }, 100)).toThrow(TypeError);
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  expect(() => jsonLengthOver(cycle, 100)).toThrow(TypeError);
});
