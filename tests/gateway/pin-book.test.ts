/**
 * PinBook on its own: trust on first use per instance and per list, drift and hidden text found once
 * (a flapping definition warns once), what enforce and warn serve, accept (named, whole, hidden text),
 * and the lock file it writes and reads (stable bytes, coded errors).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PinBook } from "../../src/gateway/pins/pin-book.js";
import type { ResolvedPinning } from "../../src/config/types.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

const tool = (name: string, description: string, props: Record<string, unknown> = {}) => ({
  name,
  description,
  inputSchema: { type: "object", properties: { a: { type: "number", description: "a" }, ...props } },
});

function book(
  pinning: Partial<ResolvedPinning> = {},
  file = path.join(tempDir("pb-pinbook-"), "connectors.lock.json"),
) {
  const warnings: string[] = [];
  const said: string[] = [];
  const b = new PinBook({
    file,
    pinning: { default: "enforce", instances: {}, ...pinning },
    warn: (m) => warnings.push(m),
    say: (l) => said.push(l),
  });
  return { b, file, warnings, said };
}

describe("PinBook", () => {
  it("pins an instance on first use, writes the lock once, and serves what matches", () => {
    const { b, file, said } = book();
    const first = b.review("mcpConnectors/a", "tools", [tool("x", "X."), tool("y", "Y.")], {
      name: "srv",
      version: "1",
    });
    expect(first.served.map((t) => t.name)).toEqual(["x", "y"]);
    b.flush();
    expect(said).toHaveLength(1);
    const lock = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(lock.instances["mcpConnectors/a"].tools)).toEqual(["x", "y"]);
    expect(lock.instances["mcpConnectors/a"].server).toEqual({ name: "srv", version: "1" });
    // Reordered keys: the same definition, still pinned.
    const again = b.review("mcpConnectors/a", "tools", [
      {
        inputSchema: { properties: { a: { description: "a", type: "number" } }, type: "object" },
        description: "X.",
        name: "x",
      },
    ]);
    expect(again.withheld).toEqual([]);
    b.flush();
    expect(said).toHaveLength(1);
  });

  it("withholds a drifted and a new tool in enforce, serves them flagged in warn, and warns once per definition", () => {
    const { b, warnings } = book({ instances: { "mcpConnectors/w": "warn" } });
    b.review("mcpConnectors/a", "tools", [tool("x", "X.")]);
    b.review("mcpConnectors/w", "tools", [tool("x", "X.")]);
    b.flush();
    for (let i = 0; i < 5; i++) {
      const a = b.review("mcpConnectors/a", "tools", [tool("x", `X, version ${i}.`), tool("new", "N.")]);
      expect(a.served).toEqual([]);
      expect(a.withheld.map((w) => [w.name, w.error.code])).toEqual([
        ["x", "PB_ERR_TOOL_DRIFT"],
        ["new", "PB_ERR_TOOL_DRIFT"],
      ]);
      const w = b.review("mcpConnectors/w", "tools", [tool("x", `X, version ${i}.`)]);
      expect(w.served.map((t) => t.name)).toEqual(["x"]);
    }
    expect(warnings).toHaveLength(3);
    expect(b.list().map((f) => [f.instance, f.name, f.status, f.mode])).toEqual([
      ["mcpConnectors/a", "x", "drifted", "enforce"],
      ["mcpConnectors/a", "new", "new", "enforce"],
      ["mcpConnectors/w", "x", "drifted", "warn"],
    ]);
  });

  it("never pins hidden text on first use, and accepts it only when allowed", () => {
    const { b, file } = book();
    const hidden = tool("h", "Adds.\u200bSecretly.");
    const r = b.review("mcpConnectors/a", "tools", [tool("x", "X."), hidden]);
    expect(r.withheld.map((w) => [w.name, w.error.code])).toEqual([["h", "PB_ERR_TOOL_HIDDEN_TEXT"]]);
    expect(r.withheld[0].error.message).toContain("U+200B (zero-width) at /description:5");
    expect(b.accept("mcpConnectors/a", ["h"])).toMatchObject({ accepted: [], refused: [{ name: "h" }] });
    expect(b.accept("mcpConnectors/a", ["h"], { allowHiddenText: true })).toEqual({ accepted: ["h"], refused: [] });
    expect(JSON.parse(readFileSync(file, "utf8")).instances["mcpConnectors/a"].tools.h.allowHiddenText).toBe(true);
    expect(b.review("mcpConnectors/a", "tools", [tool("x", "X."), hidden]).withheld).toEqual([]);
  });

  it("a whole-instance accept forgets tools no longer offered; an unknown name or instance is PB_ERR_PINS_UNKNOWN", () => {
    const { b, file } = book();
    b.review("mcpConnectors/a", "tools", [tool("x", "X."), tool("gone", "G.")]);
    b.flush();
    b.review("mcpConnectors/a", "tools", [tool("x", "X2.")]);
    expect(() => b.accept("mcpConnectors/a", ["nope"])).toThrow(
      expect.objectContaining({ code: "PB_ERR_PINS_UNKNOWN" }),
    );
    expect(() => b.accept("mcpConnectors/zz", [])).toThrow(expect.objectContaining({ code: "PB_ERR_PINS_UNKNOWN" }));
    expect(b.accept("mcpConnectors/a", [])).toEqual({ accepted: ["x"], refused: [] });
    const pins = JSON.parse(readFileSync(file, "utf8")).instances["mcpConnectors/a"].tools;
    expect(Object.keys(pins)).toEqual(["x"]);
    expect(pins.x.definition.description).toBe("X2.");
  });

  it("pins each list on its own first read: prompts listed later are trusted, a later new prompt is not", () => {
    const { b } = book();
    b.review("mcpConnectors/a", "tools", [tool("x", "X.")]);
    expect(b.review("mcpConnectors/a", "prompts", [{ name: "p", description: "P." }]).withheld).toEqual([]);
    const later = b.review("mcpConnectors/a", "prompts", [
      { name: "p", description: "P." },
      { name: "q", description: "Q." },
    ]);
    expect(later.withheld.map((w) => w.name)).toEqual(["q"]);
    expect(later.withheld[0].error.message).toContain('prompt "q" is new');
  });

  it("writes the same bytes for the same approvals, and reads them back", () => {
    const one = book();
    one.b.review("mcpConnectors/a", "tools", [tool("x", "X."), tool("y", "Y.")]);
    one.b.flush();
    const two = book();
    two.b.review("mcpConnectors/a", "tools", [tool("y", "Y."), tool("x", "X.")]);
    two.b.flush();
    expect(readFileSync(two.file, "utf8")).toBe(readFileSync(one.file, "utf8"));
    const reread = book({}, one.file);
    expect(reread.b.review("mcpConnectors/a", "tools", [tool("x", "X.")]).withheld).toEqual([]);
  });

  it("a definition nested past what can be pinned is withheld in every mode, and refused by accept", () => {
    const deep: Record<string, unknown> = { type: "object" };
    let at = deep;
    for (let i = 0; i < 100; i++) at = (at.properties = { x: { type: "object" } }).x as Record<string, unknown>;
    const { b } = book({ default: "warn" });
    const r = b.review("mcpConnectors/a", "tools", [tool("ok", "OK."), { name: "deep", inputSchema: deep }]);
    expect(r.served.map((t) => t.name)).toEqual(["ok"]);
    expect(r.withheld[0].error.message).toContain("nested deeper than Patchbay pins");
    expect(b.diff(null)).toMatchObject([{ name: "deep", changes: [], hidden: [] }]);
    expect(b.accept("mcpConnectors/a", ["deep"])).toMatchObject({ accepted: [], refused: [{ name: "deep" }] });
  });

  it("off: checks nothing and writes nothing", () => {
    const { b, file } = book({ default: "off" });
    expect(b.review("mcpConnectors/a", "tools", [tool("h", "A\u202eB")]).served).toHaveLength(1);
    b.flush();
    expect(() => readFileSync(file)).toThrow();
  });

  it.each([
    ["not JSON", "{", ""],
    [
      "a bad hash",
      JSON.stringify({ lockfileVersion: 1, instances: { i: { tools: { t: { hash: "x", definition: {} } } } } }),
      "/instances/i/tools/t/hash",
    ],
    ["another version", JSON.stringify({ lockfileVersion: 2, instances: {} }), "/lockfileVersion"],
  ])("a lock that is %s is PB_ERR_PINS_LOCK_INVALID with its pointer", (_what, text, pointer) => {
    const file = path.join(tempDir("pb-pinbook-"), "connectors.lock.json");
    writeFileSync(file, text);
    expect(() => book({}, file)).toThrow(
      expect.objectContaining({ code: "PB_ERR_PINS_LOCK_INVALID", data: { file, pointer } }),
    );
  });
});
