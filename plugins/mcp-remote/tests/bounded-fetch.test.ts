// The HTTP bound (bounded-fetch.ts): a JSON body past it errors; an SSE stream errors only when
// one event passes it, however the stream is cut (blank lines split between chunks included), and
// never for a long stream of small events. Served by a real HTTP server on 127.0.0.1.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boundedFetch } from "../src/bounded-fetch.js";

const MAX = 300;
let chunks: Buffer[] = [];
let contentType = "text/event-stream";
let status = 200;
const server = http.createServer(async (_req, res) => {
  res.writeHead(status, { "content-type": contentType, ...(status === 302 ? { location: "/elsewhere" } : {}) });
  // Each chunk written alone, so the client reads the stream cut where the test cut it.
  for (const chunk of chunks) {
    res.write(chunk);
    await new Promise((r) => setImmediate(r));
  }
  res.end();
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function cut(bytes: Buffer, seed: number, maxPiece: number): Buffer[] {
  const pieces: Buffer[] = [];
  let state = seed;
  for (let at = 0; at < bytes.length; ) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const n = 1 + ((state >>> 16) % maxPiece);
    pieces.push(bytes.subarray(at, at + n));
    at += n;
  }
  return pieces;
}

async function read(): Promise<{ text: string } | { error: string }> {
  try {
    const response = await boundedFetch(MAX)(url, { redirect: "manual" });
    return { text: await response.text() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const event = (i: number, end: string) => `event: message\ndata: {"n":${i},"pad":"${"p".repeat(i % 60)}"}${end}`;

describe("boundedFetch", () => {
  it("passes a long SSE stream of small events whole, however it is cut", async () => {
    const ends = ["\n\n", "\r\n\r\n", "\r\r", "\n\r\n"];
    const stream = Buffer.from(Array.from({ length: 300 }, (_, i) => event(i, ends[i % ends.length])).join(""));
    expect(stream.length).toBeGreaterThan(50 * MAX);
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      chunks = cut(stream, seed, seed % 2 ? 3 : 40);
      await expect(read(), `seed ${seed}`).resolves.toEqual({ text: stream.toString() });
    }
  });

  it("errors when one SSE event passes the bound, with the words connection.ts recognises", async () => {
    const big = `event: message\ndata: ${"x".repeat(4 * MAX)}\n`;
    const stream = Buffer.from(`${event(1, "\n\n")}${big}\n${event(2, "\n\n")}`);
    for (const seed of [1, 2, 3]) {
      chunks = cut(stream, seed, 40);
      await expect(read()).resolves.toEqual({ error: `ReadBuffer exceeded maximum size of ${MAX} bytes` });
    }
    // An event that never ends: many lines, no blank one.
    chunks = Array.from({ length: 50 }, () => Buffer.from(`data: ${"y".repeat(30)}\n`));
    await expect(read()).resolves.toEqual({ error: `ReadBuffer exceeded maximum size of ${MAX} bytes` });
  });

  it("bounds a JSON body as a whole, and passes one within the bound", async () => {
    contentType = "application/json";
    try {
      chunks = cut(Buffer.from(JSON.stringify({ pad: "z".repeat(MAX) })), 7, 50);
      await expect(read()).resolves.toEqual({ error: `ReadBuffer exceeded maximum size of ${MAX} bytes` });
      const small = JSON.stringify({ ok: true, pad: "z".repeat(MAX - 40) });
      chunks = cut(Buffer.from(small), 8, 50);
      await expect(read()).resolves.toEqual({ text: small });
    } finally {
      contentType = "text/event-stream";
    }
  });

  it("leaves a redirect as the server sent it (the SDK follows redirects itself)", async () => {
    status = 302;
    try {
      chunks = [Buffer.from("z".repeat(4 * MAX))];
      const response = await boundedFetch(MAX)(url, { redirect: "manual" });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/elsewhere");
    } finally {
      status = 200;
    }
  });
});
