// The host-thread channel's copy (src/spawn/plain-copy.ts) must give what structuredClone gives:
// equal data, no object shared with the original, the same refusal for what cannot be sent.
import { describe, expect, it } from "vitest";
import { copyMessage } from "../../src/spawn/plain-copy.js";

const deep = (n: number): unknown => (n === 0 ? { leaf: true } : { next: deep(n - 1) });
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
const shared = { s: 1 };
const sab = new SharedArrayBuffer(8);
const withExtra = Object.assign([1, 2], { extra: "kept" });
const holey = [1, 2, 3];
delete holey[1];
const withGetter = Object.defineProperty({ a: 1 }, "b", { enumerable: true, get: () => 2 });
const hidden = Object.defineProperty({ a: 1 }, "b", { enumerable: false, value: 2 });
class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

const values: [string, unknown][] = [
  ["a call", { t: "call", id: 1, method: "call", args: ["echo", { text: "hi" }], deadline: 1_700_000_000_000 }],
  [
    "a result batch",
    { t: "batch", msgs: [{ t: "result", id: 1, ok: true, value: { content: [{ type: "text", text: "hi" }] } }] },
  ],
  ["primitives", { s: "x", n: -0, nan: Number.NaN, inf: Infinity, b: true, nul: null, u: undefined, big: 10n }],
  ["undefined in an array", [undefined, 1]],
  ["a hole", holey],
  ["an array with a key besides its indexes", withExtra],
  ["a long array", Array.from({ length: 1_000 }, (_, i) => ({ i }))],
  ["integer-like keys", { b: 1, 2: "two", a: 3, 1: "one" }],
  ["a getter", withGetter],
  ["a non-enumerable key", hidden],
  ["a shared object", { a: shared, b: shared }],
  ["a cycle", cyclic],
  ["deep nesting", deep(100)],
  ["a Date", { when: new Date(0) }],
  ["a Map", { m: new Map([[1, { x: 1 }]]) }],
  ["a typed array", { bytes: new Uint8Array([1, 2, 3]) }],
  ["a SharedArrayBuffer", { sab }],
  ["a null-prototype object", Object.assign(Object.create(null), { a: 1 })],
  ["a class instance", new Point(1, 2)],
  ["an Error", { err: new TypeError("boom") }],
  ["a __proto__ key", JSON.parse('{"__proto__":{"polluted":true},"a":1}')],
];

describe("copyMessage gives what structuredClone gives", () => {
  for (const [what, value] of values) {
    it(what, () => {
      const expected = structuredClone(value);
      const copy = copyMessage(value);
      expect(copy).toStrictEqual(expected);
      if (typeof value === "object" && value !== null) expect(copy).not.toBe(value);
      expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(expected));
      if (what === "a shared object") {
        // The one difference: structuredClone would make one copy of it, the walk makes two equal
        // ones. Nothing that crosses the boundary can tell (results are JSON; the guard walks a shared object once either way).
        const c = copy as { a: object; b: object };
        expect(c.a).toStrictEqual(c.b);
        expect(c.a).not.toBe(shared);
      }
      if (what === "a cycle") expect((copy as typeof cyclic).self).toBe(copy);
      if (what === "a SharedArrayBuffer")
        expect((copy as { sab: SharedArrayBuffer }).sab).toBeInstanceOf(SharedArrayBuffer);
    });
  }

  it("copies nested objects and arrays rather than sharing them", () => {
    const msg = { t: "result", value: { content: [{ type: "text", text: "hi" }] } };
    const copy = copyMessage(msg);
    copy.value.content[0].text = "changed";
    copy.value.content.push({ type: "text", text: "more" });
    expect(msg.value.content).toEqual([{ type: "text", text: "hi" }]);
  });

  it("throws what structuredClone throws for a value no port could carry", () => {
    for (const bad of [{ fn: () => 1 }, [Symbol("s")], { nested: { deeper: [() => 2] } }]) {
      const why = (() => {
        try {
          structuredClone(bad);
        } catch (err) {
          return (err as Error).name;
        }
      })();
      expect(why).toBe("DataCloneError");
      expect(() => copyMessage(bad)).toThrow(expect.objectContaining({ name: "DataCloneError" }));
    }
  });
});
