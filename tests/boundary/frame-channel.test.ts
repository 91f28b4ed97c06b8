// The channel to a process child reads what it was sent, however the socket cuts it, and nothing
// a child can forge gets past it: a length over the bound (read unsigned: the top bit set is not
// a negative length), a body that is not structured-clone data, an empty frame. The first bad
// frame ends the reading, with why.

import { describe, expect, it } from "vitest";
import { cutPieces } from "../helpers.js";
import { encodeFrame, FrameReader, MAX_FRAME_BYTES } from "../../src/contract/frame-channel.js";

function read(chunks: Buffer[], max?: number) {
  const messages: unknown[] = [];
  const violations: string[] = [];
  const reader = new FrameReader(
    (m) => messages.push(m),
    (why) => violations.push(why),
    max,
  );
  for (const c of chunks) reader.push(c);
  return { messages, violations };
}

const messages = [
  { t: "result", id: 1, ok: true, value: { text: "日本語 🚀", n: 1.5, u: undefined, d: new Date(0) } },
  { t: "log", level: "info", msg: "x".repeat(70_000) },
  { t: "result", id: 2, ok: true, value: new Map([["k", [1, 2, 3]]]) },
  { t: "batch", msgs: [{ t: "result", id: 3, ok: true, value: null }] },
];

describe("the process channel's frames", () => {
  it("reads every message back, over 200 cuttings of the stream", () => {
    const stream = Buffer.concat(messages.map(encodeFrame));
    for (let seed = 1; seed <= 200; seed++) {
      const r = read(cutPieces(stream, seed, 1 + ((seed * 37) % 9000)));
      expect(r.violations, `seed ${seed}`).toEqual([]);
      expect(r.messages, `seed ${seed}`).toEqual(messages);
    }
  });

  it("throws at send time for what structured clone cannot carry, as postMessage does", () => {
    expect(() => encodeFrame({ f: () => 1 })).toThrow();
    expect(() => encodeFrame({ s: Symbol("x") })).toThrow();
  });

  it("stops at a length over the bound, even with the top bit set, before reading the body", () => {
    for (const header of ["f0000000", "80000000", "ffffffff", (MAX_FRAME_BYTES + 1).toString(16).padStart(8, "0")]) {
      const r = read([
        encodeFrame({ t: "ok" }),
        Buffer.from(`${header}ffffffffffffffff`, "hex"),
        encodeFrame({ t: "after" }),
      ]);
      expect(r.messages, header).toEqual([{ t: "ok" }]);
      expect(r.violations, header).toHaveLength(1);
      expect(r.violations[0]).toMatch(/^a message of \d+ bytes, over the 64 MiB the host reads$/);
    }
  });

  it("reads a frame at the bound, and refuses one a byte over it", () => {
    const frame = encodeFrame({ t: "log", msg: "y".repeat(1000) });
    const body = frame.length - 4;
    expect(read([frame], body)).toEqual({ messages: [{ t: "log", msg: "y".repeat(1000) }], violations: [] });
    const over = read([frame], body - 1);
    expect(over.messages).toEqual([]);
    expect(over.violations[0]).toMatch(new RegExp(`^a message of ${body} bytes, over the `));
  });

  it("stops at a body that is not structured-clone data, and at an empty frame", () => {
    for (const hex of ["00000004ffffffff", "00000000"]) {
      const r = read([Buffer.from(hex, "hex"), encodeFrame({ t: "after" })]);
      expect(r.messages, hex).toEqual([]);
      expect(r.violations, hex).toHaveLength(1);
      expect(r.violations[0]).toMatch(/^a message that is not structured-clone data/);
    }
  });
});
