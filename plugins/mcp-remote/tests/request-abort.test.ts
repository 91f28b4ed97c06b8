// mcp-remote's HTTP fetch gives each request its own abort signal (request-abort.ts): 2,000
// requests on one connection signal, answered as JSON and as SSE, leave no listener on it, while
// aborting that signal still ends a request in flight and a stream being read. A real HTTP server
// on 127.0.0.1 and Node's own fetch (undici), which is what added a listener per request.
import { getEventListeners } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boundedFetch } from "../src/bounded-fetch.js";

const server = http.createServer((req, res) => {
  if (req.url === "/hang") {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("event: message\ndata: {}\n\n"); // then nothing: a stream held open
    return;
  }
  const sse = req.url === "/sse";
  res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json" });
  res.end(sse ? 'event: message\ndata: {"ok":true}\n\n' : '{"ok":true}');
});
let base = "";
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe("each request has its own abort signal", () => {
  it("2,000 requests on one connection signal leave no listener on it", async () => {
    const connection = new AbortController();
    const fetch = boundedFetch();
    for (let i = 0; i < 2000; i++) {
      const response = await fetch(`${base}/${i % 2 ? "sse" : "json"}`, { signal: connection.signal });
      await response.text();
    }
    expect(getEventListeners(connection.signal, "abort")).toHaveLength(0);
  }, 60_000);

  it("aborting the connection still ends a stream being read, and a request not yet answered", async () => {
    const connection = new AbortController();
    const fetch = boundedFetch();
    const response = await fetch(`${base}/hang`, { signal: connection.signal });
    const reader = response.body!.getReader();
    await reader.read(); // the first event
    expect(getEventListeners(connection.signal, "abort")).toHaveLength(1);
    const pending = reader.read();
    connection.abort(new Error("transport closed"));
    await expect(pending).rejects.toThrow();

    const closed = new AbortController();
    closed.abort(new Error("already closed"));
    await expect(fetch(`${base}/json`, { signal: closed.signal })).rejects.toThrow();
    expect(getEventListeners(closed.signal, "abort")).toHaveLength(0);
  });
});
