/**
 * A gateway client that cancels a call (the SDK sends notifications/cancelled when its
 * AbortSignal aborts) withdraws it all the way: the host cancels the instance's call, and
 * mcp-remote cancels the request on the upstream server, which records it. The gateway keeps
 * serving that client.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, tempDir, until, writeConfig } from "../helpers.js";
import { HOSTILE } from "../mcp/_host.js";
import { connectStdio, toolText } from "./_gateway.js";

afterAll(cleanupTempDirs);

describe("cancellation through the gateway", () => {
  it("reaches the upstream server when the client cancels, and the next call is served", async () => {
    const dir = tempDir("pb-gw-cancel-");
    const cancelFile = path.join(dir, "cancelled.txt");
    const startFile = path.join(dir, "started.txt");
    const { file } = writeConfig({
      plugins: [],
      defaults: { timeout_ms: 30_000, health_interval_ms: 60_000 },
      mcpConnectors: { slowpoke: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE], env: { CANCEL_FILE: cancelFile, START_FILE: startFile } } } },
    }, dir);
    const s = await connectStdio(file);
    try {
      const caller = new AbortController();
      const call = s.client.callTool({ name: "slowpoke__slow", arguments: { ms: 30_000 } }, undefined, { signal: caller.signal });
      // Cancelled once it runs on the server (not before it got there).
      await until(() => existsSync(startFile), 10_000, "the call to reach the upstream server");
      caller.abort(new Error("the user gave up"));
      await expect(call).rejects.toThrow();
      // The line itself is the marker: appendFileSync creates the file before it writes the line.
      await until(() => existsSync(cancelFile) && readFileSync(cancelFile, "utf8").includes("\n"), 60_000, "the upstream server to record the cancellation");
      expect(readFileSync(cancelFile, "utf8")).toMatch(/cancelled/);
      expect(toolText(await s.client.callTool({ name: "slowpoke__ok", arguments: {} }))).toBe("ok");
    } finally {
      await s.close();
    }
  });
});
