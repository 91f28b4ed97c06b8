// The line framing must read what the SDK's ReadBuffer reads, chunk by chunk: the same messages,
// the same errors for bad lines, the same bound (complete lines not read yet count) and the same
// words when it is passed. Each stream runs through both, cut at many places.

import { ReadBuffer } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { describe, expect, it } from "vitest";
import { LineBuffer } from "../src/line-buffer.js";

type Reader = { append(chunk: Buffer): void; readMessage(): unknown };

/** What a transport does with each chunk: append, then read until nothing is complete; every outcome in order. */
function drive(reader: Reader, chunks: Buffer[]): string[] {
  const seen: string[] = [];
  for (const chunk of chunks) {
    try {
      reader.append(chunk);
    } catch (err) {
      seen.push(`append threw: ${(err as Error).message}`);
      continue;
    }
    for (;;) {
      let message: unknown;
      try {
        message = reader.readMessage();
      } catch (err) {
        seen.push(`line threw: ${(err as Error).name}`);
        continue;
      }
      if (message === null) break;
      seen.push(JSON.stringify(message));
    }
  }
  return seen;
}

/** Cuts `bytes` at pseudo-random places (a fixed seed: the same cuts every run), empty pieces included. */
function cut(bytes: Buffer, seed: number, maxPiece: number): Buffer[] {
  const pieces: Buffer[] = [];
  let state = seed;
  for (let at = 0; at < bytes.length; ) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const n = (state >>> 16) % (maxPiece + 1);
    pieces.push(bytes.subarray(at, at + n));
    at += n;
  }
  return pieces;
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const stream = Buffer.from(
  [
    line({ jsonrpc: "2.0", id: "pb:1", result: { content: [{ type: "text", text: "héllo wörld ✓ 🎉" }] } }),
    line({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "pb:2", progress: 1 } }),
    `${JSON.stringify({ jsonrpc: "2.0", id: 3, result: {} })}\r\n`,
    "this is not json\n",
    line({ not: "json-rpc" }),
    "\n",
    line({ jsonrpc: "2.0", id: 4, method: "roots/list" }),
    line({ jsonrpc: "2.0", id: "pb:5", result: { content: [{ type: "text", text: "x".repeat(3000) }] } }),
    line({ jsonrpc: "2.0", id: "pb:6", error: { code: -32602, message: "Unknown tool" } }),
  ].join(""),
  "utf8",
);

describe("LineBuffer reads what the SDK's ReadBuffer reads", () => {
  it("for the same stream cut in many ways (UTF-8 characters split between chunks included)", () => {
    const expected = drive(new ReadBuffer(), [stream]);
    expect(expected.filter((s) => s.startsWith("{"))).toHaveLength(6);
    expect(expected.filter((s) => s.startsWith("line threw"))).toHaveLength(3);
    for (let seed = 1; seed <= 200; seed++) {
      const chunks = cut(stream, seed, seed % 2 === 0 ? 7 : 700);
      expect(drive(new LineBuffer(), chunks), `seed ${seed}`).toEqual(drive(new ReadBuffer(), chunks));
      expect(drive(new LineBuffer(), chunks), `seed ${seed}`).toEqual(expected);
    }
  });

  it("holds the same bound, counting complete lines not read yet, and reads on after it", () => {
    const max = 600;
    for (let seed = 1; seed <= 100; seed++) {
      const chunks = cut(stream, seed, 300);
      const ours = drive(new LineBuffer(max), chunks);
      expect(ours, `seed ${seed}`).toEqual(drive(new ReadBuffer({ maxBufferSize: max }), chunks));
      expect(ours.some((s) => s === `append threw: ReadBuffer exceeded maximum size of ${max} bytes`)).toBe(true);
    }
    // Unread complete lines count: two 400-byte lines appended before any read pass a 600-byte bound.
    const long = Buffer.from(line({ jsonrpc: "2.0", id: 1, result: { pad: "p".repeat(360) } }));
    for (const reader of [new LineBuffer(max), new ReadBuffer({ maxBufferSize: max })]) {
      reader.append(long);
      expect(() => reader.append(long)).toThrow(`ReadBuffer exceeded maximum size of ${max} bytes`);
      expect(reader.readMessage()).toBeNull(); // emptied
    }
  });

  it("joins a line of many chunks once its end arrives, whatever its size", () => {
    const text = "y".repeat(9 * 1024 * 1024);
    const big = Buffer.from(line({ jsonrpc: "2.0", id: "pb:7", result: { content: [{ type: "text", text }] } }));
    const chunks: Buffer[] = [];
    for (let at = 0; at < big.length; at += 65536) chunks.push(big.subarray(at, at + 65536));
    const reader = new LineBuffer();
    for (const chunk of chunks.slice(0, -1)) {
      reader.append(chunk);
      expect(reader.readMessage()).toBeNull();
    }
    reader.append(chunks.at(-1) as Buffer);
    const message = reader.readMessage() as unknown as { result: { content: { text: string }[] } };
    expect(message.result.content[0].text).toBe(text);
    expect(reader.readMessage()).toBeNull();
  });
});
