/**
 * Resource subscriptions for embedders: host.mcp(...).subscribe_resource through mcp-remote to
 * the real server-everything, updates through host.onResourceUpdated; the guard's checks of the
 * URI; and the coded error when the server does not take subscriptions (the hostile fixture
 * server announces no resources capability).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { ResourceUpdate } from "../../src/host/api.js";
import { cleanupTempDirs, tempDir, until } from "../helpers.js";
import { bootMcp, EVERYTHING, HOSTILE } from "./_host.js";

const EVERYTHING_PID = fileURLToPath(new URL("../fixtures/mcp/everything-pid.mjs", import.meta.url));
afterAll(cleanupTempDirs);

describe("subscribe_resource through mcp-remote", () => {
  it("delivers the server's updates for a subscribed URI to host.onResourceUpdated, until unsubscribed", async () => {
    const s = await bootMcp({
      everything: { plugin: "mcp-remote", config: { command: "node", args: [EVERYTHING, "stdio"] } },
    });
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
      await s.waitLog(
        (l) => String(l.data ?? "").includes("Received Unsubscribe Resource request: test://embedded"),
        "the server's unsubscribe log line",
      );
      stop();
    } finally {
      await s.host.close();
    }
  }, 30_000);

  it("after the server dies and mcp-remote reconnects, the new session holds the subscription again and says the URI updated", async () => {
    const pidFile = path.join(tempDir("pb-sub-"), "everything.pid");
    const s = await bootMcp({
      everything: {
        plugin: "mcp-remote",
        config: { command: "node", args: [EVERYTHING_PID], env: { PID_FILE: pidFile } },
      },
    });
    try {
      const seen: string[] = [];
      s.host.onResourceUpdated((u) => seen.push(u.uri));
      await s.host.mcp("everything").subscribe_resource("test://survives");
      const first = Number(readFileSync(pidFile, "utf8"));
      process.kill(first, "SIGKILL");
      // An idempotent request: sent again on a new session (a new server) if the old one is gone.
      await s.host.call("mcpConnectors/everything", "health_check");
      await until(() => seen.includes("test://survives"), 10_000, "the renewed subscription's update");
      expect(Number(readFileSync(pidFile, "utf8"))).not.toBe(first);
      const asked = s.logs.filter((l) =>
        String(l.data ?? "").includes("Received Subscribe Resource request for URI: test://survives"),
      );
      expect(asked).toHaveLength(2);
      // The new server really holds it: its own simulated updates arrive.
      const before = seen.length;
      await s.host.mcp("everything").call("toggle-subscriber-updates", {});
      await until(() => seen.length > before, 10_000, "an update from the new server");
    } finally {
      await s.host.close();
    }
  }, 30_000);

  it("a server without resources.subscribe gets PB_ERR_UNSUPPORTED naming what is missing", async () => {
    const s = await bootMcp({ hostile: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE] } } });
    try {
      const err = await s.host
        .mcp("hostile")
        .subscribe_resource("test://x")
        .catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "PB_ERR_UNSUPPORTED" });
      expect((err as Error).message).toMatch(
        /^mcpConnectors\/hostile\.subscribe_resource\(\): command "node" does not offer resource subscriptions \(.*resources\.subscribe/,
      );
      await expect(s.host.mcp("hostile").unsubscribe_resource("test://x")).rejects.toMatchObject({
        code: "PB_ERR_UNSUPPORTED",
      });
    } finally {
      await s.host.close();
    }
  });

  it("the guard refuses an empty or over-long URI before anything crosses", async () => {
    const s = await bootMcp({ hostile: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE] } } });
    try {
      await expect(s.host.mcp("hostile").subscribe_resource("")).rejects.toMatchObject({
        code: "PB_ERR_CONTRACT_ARGS",
      });
      await expect(s.host.mcp("hostile").subscribe_resource("x".repeat(8_193))).rejects.toMatchObject({
        code: "PB_ERR_CONTRACT_ARGS",
      });
      await expect(s.host.call("mcpConnectors/hostile", "unsubscribe_resource", [42])).rejects.toMatchObject({
        code: "PB_ERR_CONTRACT_ARGS",
      });
    } finally {
      await s.host.close();
    }
  });
});
