/**
 * MCP resource subscriptions end to end: the real SDK client → the real bin (`serve --mcp` and
 * `serve --http`) → mcp-remote → the real @modelcontextprotocol/server-everything, whose
 * toggle-subscriber-updates tool sends notifications/resources/updated for every subscribed URI
 * at once and then every 5 s. What the upstream was asked is read from its own log lines, which
 * mcp-remote relays to serve's stderr.
 */
import { writeFileSync, readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, until } from "../helpers.js";
import { connectStdio, gatewayConfig, startHttpServe } from "./_gateway.js";
import {
  everythingConfig,
  occurrences,
  recordUpdates,
  TOGGLE,
  upstreamSubscribed,
  upstreamUnsubscribed,
} from "./_updates.js";

afterAll(cleanupTempDirs);

describe("resource subscriptions over stdio", () => {
  it("offers resources.subscribe; a subscriber gets the server's updates, and none for a URI after unsubscribing it", async () => {
    const { file } = everythingConfig();
    const s = await connectStdio(file);
    try {
      expect(s.client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
      const updates = recordUpdates(s.client);
      expect(await s.client.subscribeResource({ uri: "test://a" })).toEqual({});
      expect(await s.client.subscribeResource({ uri: "test://b" })).toEqual({});
      const first = Promise.all([updates.next("test://a"), updates.next("test://b")]);
      await s.client.callTool({ name: TOGGLE, arguments: {} });
      await first;

      expect(await s.client.unsubscribeResource({ uri: "test://a" })).toEqual({});
      await until(() => s.stderr().includes(upstreamUnsubscribed("test://a")), 10_000, "the upstream unsubscribe");
      const aBefore = updates.count("test://a");
      // The server's next tick updates every URI it still holds (a before b): b arrives, a does not.
      await updates.next("test://b");
      expect(updates.count("test://a")).toBe(aBefore);
      expect(occurrences(s.stderr(), upstreamSubscribed("test://a"))).toBe(1);
    } finally {
      await s.close();
    }
  }, 40_000);

  it("offers no subscriptions when no exposed instance takes them, and refuses resources/subscribe as an unknown method", async () => {
    const { file } = gatewayConfig();
    const s = await connectStdio(file);
    try {
      expect(s.client.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
      await expect(s.client.subscribeResource({ uri: "test://a" })).rejects.toMatchObject({ code: -32601 });
    } finally {
      await s.close();
    }
  });

  it("after a hot reload restarts the instance, subscribes again on the new worker and tells the client to re-read", async () => {
    const { file } = everythingConfig();
    const s = await connectStdio(file, ["--watch"]);
    try {
      const updates = recordUpdates(s.client);
      await s.client.subscribeResource({ uri: "test://kept" });
      const renewed = updates.next("test://kept");
      // A changed entry restarts the instance: a new worker, a new mcp-remote, a new server-everything.
      const config = JSON.parse(readFileSync(file, "utf8"));
      config.mcpConnectors.everything.timeout_ms = 9_000;
      writeFileSync(file, JSON.stringify(config));
      await renewed;
      expect(occurrences(s.stderr(), upstreamSubscribed("test://kept"))).toBe(2);
      // The new upstream really holds it: its own updates arrive.
      const fromServer = updates.next("test://kept");
      await s.client.callTool({ name: TOGGLE, arguments: {} });
      await fromServer;
    } finally {
      await s.close();
    }
  }, 40_000);
});

describe("resource subscriptions over Streamable HTTP, several clients", () => {
  it("only subscribers get updates; ref-counted across clients; a client leaving releases only what nobody else holds", async () => {
    const { file } = everythingConfig();
    const serve = await startHttpServe(file);
    const clients: Client[] = [];
    try {
      const [c1, c2, c3] = await Promise.all([serve.connect(), serve.connect(), serve.connect()]);
      clients.push(c1, c2, c3);
      expect(c1.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
      const [u1, u2, u3] = [recordUpdates(c1), recordUpdates(c2), recordUpdates(c3)];
      await c1.subscribeResource({ uri: "test://shared" });
      await c2.subscribeResource({ uri: "test://shared" });
      await c2.subscribeResource({ uri: "test://own" });
      // One upstream subscription for two clients.
      expect(occurrences(serve.stderr(), upstreamSubscribed("test://shared"))).toBe(1);

      const ticked = Promise.all([u1.next("test://shared"), u2.next("test://shared"), u2.next("test://own")]);
      await c3.callTool({ name: TOGGLE, arguments: {} });
      await ticked;

      // c1 leaves the shared URI: c2 still holds it, so the upstream keeps it and c2 keeps getting it.
      await c1.unsubscribeResource({ uri: "test://shared" });
      const c1Shared = u1.count("test://shared");
      await u2.next("test://shared");
      expect(serve.stderr()).not.toContain(upstreamUnsubscribed("test://shared"));
      expect(u1.count("test://shared")).toBe(c1Shared);

      // c2 disconnects: what it held is released upstream.
      await (c2.transport as StreamableHTTPClientTransport).terminateSession();
      await c2.close();
      await until(
        () =>
          serve.stderr().includes(upstreamUnsubscribed("test://shared")) &&
          serve.stderr().includes(upstreamUnsubscribed("test://own")),
        10_000,
        "the upstream unsubscribes after c2 left",
      );

      expect(u1.got.every((u) => u === "test://shared")).toBe(true);
      expect(u3.got).toEqual([]);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await serve.stop();
    }
  }, 40_000);
});
