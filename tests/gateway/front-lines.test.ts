// The head start's line reader must read the lines the whole stream holds, however the pipe cuts
// it: UTF-8 characters split between reads decode whole, \r\n ends a line as \n does, a line in
// many pieces arrives once, and a line over the bound ends the reading (the lines before it are kept).

import { describe, expect, it } from "vitest";
import { cutPieces } from "../helpers.js";
import { FrontLines } from "../../src/gateway/front-lines.js";

function read(chunks: Buffer[], maxBytes?: number): { lines: string[]; reader: FrontLines } {
  const lines: string[] = [];
  const reader = new FrontLines((line) => lines.push(line), maxBytes);
  for (const chunk of chunks) reader.push(chunk);
  return { lines, reader };
}

const text = [
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gw__echo","arguments":{"text":"日本語 ✓ 🚀 ünïcödé"}}}\r',
  "",
  "not json at all",
  '{"jsonrpc":"2.0","id":3,"method":"tools/list"}',
].join("\n");

describe("the head start's line reader", () => {
  it("reads the same lines as splitting the whole stream, over 300 cuttings", () => {
    const bytes = Buffer.from(`${text}\n`);
    const expected = `${text}\n`
      .split("\n")
      .slice(0, -1)
      .map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
    for (let seed = 1; seed <= 300; seed++) {
      const { lines, reader } = read(cutPieces(bytes, seed, 1 + (seed % 40)));
      expect(lines, `seed ${seed}`).toEqual(expected);
      expect(reader.rest().length).toBe(0);
    }
  });

  it("keeps an unended line, split inside a character, as bytes for whoever reads on", () => {
    const bytes = Buffer.from('{"text":"🚀🚀"}\n{"text":"é🚀');
    const { lines, reader } = read([bytes.subarray(0, 11), bytes.subarray(11, bytes.length - 2), bytes.subarray(-2)]);
    expect(lines).toEqual(['{"text":"🚀🚀"}']);
    expect(reader.rest().toString("utf8")).toBe('{"text":"é🚀');
    expect(reader.rest().length).toBe(0);
  });

  it("reads a 20 MB line that arrives in 64 KiB pieces whole", () => {
    const line = Buffer.alloc(20 * 1024 * 1024, "a");
    const chunks = cutPieces(Buffer.concat([line, Buffer.from("\nnext\n")]), 7, 64 * 1024);
    const { lines } = read(chunks);
    expect(lines.map((l) => l.length)).toEqual([line.length, 4]);
  });

  it("ends the reading at a line over the bound, in one piece or many, and keeps the lines before it", () => {
    const ok = "x".repeat(32);
    const long = "y".repeat(33);
    for (const stream of [`a\n${ok}\n${long}\nafter\n`, `a\n${ok}\n${long}`]) {
      for (let seed = 1; seed <= 50; seed++) {
        const { lines, reader } = read(cutPieces(Buffer.from(stream), seed, 1 + (seed % 20)), 32);
        expect(lines, `seed ${seed}`).toEqual(["a", ok]);
        expect(reader.overflowed).toBe(true);
        expect(reader.rest().length).toBe(0);
      }
    }
    // At the bound exactly, a line is read.
    expect(read([Buffer.from(`${ok}\n`)], 32).reader.overflowed).toBe(false);
  });
});
