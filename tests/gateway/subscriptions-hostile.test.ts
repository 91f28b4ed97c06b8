/**
 * A plugin that abuses the resource-update path (tests/fixtures/plugins/fx-mcp-subscribe), through
 * the real bin and the real SDK client: a flood is capped and counted, malformed update messages
 * are dropped and counted, updates for URIs nobody subscribed to reach nobody, and the gateway
 * keeps serving. The fixture misbehaves inside subscribe_resource, before it answers, so when the
 * client has its answer every message the plugin sent has been handled.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { readFileSync, writeFileSync } from "node:fs";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, until, writeConfig } from "../helpers.js";
import { connectStdio, startHttpServe, toolText } from "./_gateway.js";
import { recordUpdates } from "./_updates.js";

afterAll(cleanupTempDirs);

const config = (healthIntervalMs = 60_000) =>
  writeConfig({
    defaults: { timeout_ms: 10_000, health_interval_ms: healthIntervalMs },
    mcpConnectors: { h: { plugin: "fx-mcp-subscribe" } },
  });

describe("a hostile plugin's resource updates", () => {
  it("a flood of 10,000 updates is capped per second, the drops are reported, and the gateway keeps serving", async () => {
    const s = await connectStdio(config().file);
    try {
      const updates = recordUpdates(s.client);
      await s.client.subscribeResource({ uri: "flood://x" });
      expect(updates.count("flood://x")).toBeGreaterThan(0);
      expect(updates.count("flood://x")).toBeLessThan(10_000);
      expect(s.stderr()).toContain("dropping resource updates: over 100 per 1000 ms");
      expect((await s.client.listResources()).resources.map((r) => r.uri)).toEqual(["plain://one"]);
    } finally {
      await s.close();
    }
  });

  it("malformed update messages are dropped and counted against the instance; the good one still arrives", async () => {
    const s = await connectStdio(config().file);
    try {
      const updates = recordUpdates(s.client);
      await s.client.subscribeResource({ uri: "garbage://x" });
      expect(updates.got).toEqual(["garbage://x"]);
      const err = s.stderr();
      expect(err).toContain(
        "dropped a malformed message from its worker (a resource-updated message without a uri string)",
      );
      expect(err).toMatch(
        /dropped a malformed message from its worker \(a resource-updated message whose uri has 9\d{3} characters \(at most 8192\)\)/,
      );
      expect(err).toMatch(/"?malformed"?[=:]\s*3/);
      // Under the misbehaving limit: the same worker keeps serving.
      expect(toolText(await s.client.callTool({ name: "h__unsubscribed", arguments: {} }))).toBe("[]");
    } finally {
      await s.close();
    }
  });

  it("an update for a URI nobody subscribed to reaches nobody", async () => {
    const s = await connectStdio(config().file);
    try {
      const updates = recordUpdates(s.client);
      await s.client.subscribeResource({ uri: "stranger://x" });
      expect(updates.got).toEqual(["stranger://x"]);
    } finally {
      await s.close();
    }
  });

  it("after the worker crashes and restarts, the gateway subscribes again and tells the client to re-read", async () => {
    const s = await connectStdio(config(100).file);
    try {
      const updates = recordUpdates(s.client);
      await s.client.subscribeResource({ uri: "plain://kept" });
      expect(updates.count("plain://kept")).toBe(1);
      await s.client.callTool({ name: "h__crash", arguments: {} });
      // The restarted plugin's own report when it is subscribed again, then the gateway's notice.
      await until(() => updates.count("plain://kept") >= 3, 20_000, "two updates after the restart");
      expect(s.stderr()).toMatch(/mcpConnectors\/h restarting/);
      expect(updates.got).toEqual(["plain://kept", "plain://kept", "plain://kept"]);
    } finally {
      await s.close();
    }
  });

  it("a hot reload that stops exposing the instance ends its subscriptions and tells the client", async () => {
    const { file } = config();
    const s = await connectStdio(file, ["--watch"]);
    try {
      const ended = new Promise<string>((resolve) =>
        s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
          if (String(n.params.data).includes("subscription")) resolve(`${n.params.level}: ${String(n.params.data)}`);
        }),
      );
      await s.client.subscribeResource({ uri: "plain://one" });
      const next = JSON.parse(readFileSync(file, "utf8"));
      next.gateway = { expose: { "mcpConnectors/h": false } };
      writeFileSync(file, JSON.stringify(next));
      expect(await ended).toBe(
        "warning: The subscription to plain://one ended: mcpConnectors/h is no longer exposed. Subscribe again when it is back.",
      );
    } finally {
      await s.close();
    }
  });

  it("the instance is unsubscribed only when the last of its clients unsubscribes or leaves", async () => {
    const serve = await startHttpServe(config().file);
    const clients: Client[] = [];
    try {
      const [c1, c2] = await Promise.all([serve.connect(), serve.connect()]);
      clients.push(c1, c2);
      const unsubscribed = async () =>
        JSON.parse(toolText(await c2.callTool({ name: "h__unsubscribed", arguments: {} }))) as string[];
      await c1.subscribeResource({ uri: "plain://one" });
      await c2.subscribeResource({ uri: "plain://one" });
      await c1.subscribeResource({ uri: "plain://two" });
      await (c1.transport as StreamableHTTPClientTransport).terminateSession();
      await c1.close();
      // c1's own URI is released when it leaves (the server closes its session first); the shared one is not.
      let after: string[] = [];
      for (let i = 0; i < 200 && !(after = await unsubscribed()).includes("plain://two"); i++)
        await new Promise((r) => setImmediate(r));
      expect(after).toEqual(["plain://two"]);
      await c2.unsubscribeResource({ uri: "plain://one" });
      expect(await unsubscribed()).toEqual(["plain://two", "plain://one"]);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await serve.stop();
    }
  });
});
