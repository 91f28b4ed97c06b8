/**
 * The guard's hand-written checks for hot methods (src/guard/fast-checks.ts) must be exactly as
 * strict as the contract schema: for every odd argument list, checkCall accepts it exactly when
 * the zod schema does, and sends the same data the schema's copy would carry.
 */
import { describe, expect, it } from "vitest";
import { checkCall, type GuardTarget } from "../../src/guard/guard.js";
import { methodSchema } from "../../src/contract/schemas.js";
import { fastArgsOk } from "../../src/guard/fast-checks.js";

const target: GuardTarget = {
  instance: "mcpConnectors/x",
  kind: "mcp",
  capabilities: [],
  allowedTools: null,
  identity: null,
};
class Thing {
  a = 1;
}
function Ctor() {
  /* a function with a prototype lacking isPrototypeOf */
}

const cases: [string, unknown[]][] = [
  ["plain", ["echo", { text: "hi" }]],
  ["with overrides", ["echo", {}, { who: "me" }]],
  ["undefined overrides", ["echo", {}, undefined]],
  ["extra record", ["echo", {}, {}, {}]],
  ["extra non-record", ["echo", {}, {}, 5]],
  ["null-prototype args", ["echo", Object.create(null)]],
  ["empty tool", ["", {}]],
  ["tool not a string", [7, {}]],
  ["missing args", ["echo"]],
  ["args an array", ["echo", []]],
  ["args null", ["echo", null]],
  ["args a Map", ["echo", new Map()]],
  ["args a Date", ["echo", new Date()]],
  ["args a class instance", ["echo", new Thing()]],
  ["own constructor (not a function)", ["echo", { constructor: 1 }]],
  ["own constructor (a function)", ["echo", { constructor: Ctor }]],
  ["own __proto__ key", ["echo", JSON.parse('{"__proto__": {"x": 1}, "a": 1}')]],
  ["symbol key", ["echo", { [Symbol("s")]: 1, a: 1 }]],
  ["overrides an array", ["echo", {}, []]],
];

describe("the guard's fast argument checks", () => {
  it.each(cases)("accept exactly what the schema accepts: %s", (_label, args) => {
    const schema = methodSchema("mcp", "call")!;
    const parsed = schema.args.safeParse(args);
    const fast = fastArgsOk("mcp", "call", args);
    // Never more than the schema.
    if (fast) expect(parsed.success).toBe(true);
    let sent: unknown[] | null = null;
    try {
      sent = checkCall(target, "call", args);
    } catch (err) {
      expect(parsed.success, String(err)).toBe(false);
      expect(err).toMatchObject({ code: "PB_ERR_CONTRACT_ARGS" });
      return;
    }
    expect(parsed.success).toBe(true);
    // What crosses the boundary (a structured clone) is what the schema's copy would carry.
    const data = parsed.data as unknown[];
    const expected = data.length > 2 && data[2] === undefined ? data.slice(0, 2) : data.slice(0, 3);
    expect(structuredClone(sent)).toEqual(
      structuredClone(
        expected.length > 2 && Object.keys(expected[2] as object).length === 0 ? expected.slice(0, 2) : expected,
      ),
    );
  });

  it("take the fast path for the plain call", () => {
    expect(fastArgsOk("mcp", "call", ["echo", { text: "hi" }])).toBe(true);
    expect(fastArgsOk("mcp", "list_tools", [])).toBe(true);
  });
});
