/**
 * Resource subscriptions for embedders: host.mcp(...).subscribe_resource through mcp-remote to
 * the real server-everything, updates through host.onResourceUpdated; the guard's checks of the
 * URI; and the coded error when the server does not take subscriptions (the hostile fixture
 * server announces no resources capability).
 */
import { describe, expect, it } from "vitest";
import type { ResourceUpdate } from "../../src/host-api.js";
import { bootMcp, EVERYTHING, HOSTILE } from "./_host.js";

describe("subscribe_resource through mcp-remote", () => {
  it("delivers the server's updates for a subscribed URI to host.onResourceUpdated, until unsubscribed", async () => {
    const s = await bootMcp({ everything: { plugin: "mcp-remote", config: { command: "node", args: [EVERYTHING, "stdio"] } } });
    try {
      const seen: ResourceUpdate[] = [];
      let arrived!: () => void;
      const first = new Promise<void>((resolve) => (arrived = resolve));
      const stop = s.host.onResourceUpdated((u) => (seen.push(u), arrived()));
      const everything = s.host.mcp("everything");
      expect(await everything.subscribe_resource("test://embedded")).toBeUndefined();
      await everything.call("toggle-subscriber-updates", {});
      await first;
      expect(seen[0]).toEqual({ instance: "mcpConnectors/everything", uri: "test://embedded" });
      expect(await everything.unsubscribe_resource("test://embedded")).toBeUndefined();
      await s.waitLog((l) => String(l.data ?? "").includes("Received Unsubscribe Resource request: test://embedded"), "the server's unsubscribe log line");
      stop();
    } finally {
      await s.host.close();
    }
  }, 30_000);

  it("a server without resources.subscribe gets PB_ERR_UNSUPPORTED naming what is missing", async () => {
    const s = await bootMcp({ hostile: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE] } } });
    try {
      const err = await s.host.mcp("hostile").subscribe_resource("test://x").catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "PB_ERR_UNSUPPORTED" });
      expect((err as Error).message).toMatch(/^mcpConnectors\/hostile\.subscribe_resource\(\): command "node" does not offer resource subscriptions \(.*resources\.subscribe/);
      await expect(s.host.mcp("hostile").unsubscribe_resource("test://x")).rejects.toMatchObject({ code: "PB_ERR_UNSUPPORTED" });
    } finally {
      await s.host.close();
    }
  });

  it("the guard refuses an empty or over-long URI before anything crosses", async () => {
    const s = await bootMcp({ hostile: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE] } } });
    try {
      await expect(s.host.mcp("hostile").subscribe_resource("")).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS" });
      await expect(s.host.mcp("hostile").subscribe_resource("x".repeat(8_193))).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS" });
      await expect(s.host.call("mcpConnectors/hostile", "unsubscribe_resource", [42])).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS" });
    } finally {
      await s.host.close();
    }
  });
});
