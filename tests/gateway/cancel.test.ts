/**
 * A gateway client that cancels a call (the SDK sends notifications/cancelled when its
 * AbortSignal aborts) withdraws it all the way: the host cancels the instance's call, and
 * mcp-remote cancels the request on the upstream server, which records it. The gateway keeps
 * serving that client.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, until } from "../helpers.js";
import { connectStdio, slowpokeConfig, startHttpServe, toolText } from "./_gateway.js";

afterAll(cleanupTempDirs);

describe("cancellation through the gateway", () => {
  it("reaches the upstream server when the client cancels, and the next call is served", async () => {
    const { file, startFile, cancelFile } = slowpokeConfig("pb-gw-cancel-");
    const s = await connectStdio(file);
    try {
      const caller = new AbortController();
      const call = s.client.callTool({ name: "slowpoke__slow", arguments: { ms: 30_000 } }, undefined, {
        signal: caller.signal,
      });
      // Cancelled once it runs on the server (not before it got there).
      await until(() => existsSync(startFile), 10_000, "the call to reach the upstream server");
      caller.abort(new Error("the user gave up"));
      await expect(call).rejects.toThrow();
      // The line itself is the marker: appendFileSync creates the file before it writes the line.
      await until(
        () => existsSync(cancelFile) && readFileSync(cancelFile, "utf8").includes("\n"),
        60_000,
        "the upstream server to record the cancellation",
      );
      expect(readFileSync(cancelFile, "utf8")).toMatch(/cancelled/);
      expect(toolText(await s.client.callTool({ name: "slowpoke__ok", arguments: {} }))).toBe("ok");
    } finally {
      await s.close();
    }
  });

  it("over HTTP, a client that closes its response stream mid-call withdraws it upstream, and it counts as an error, not a success", async () => {
    const { file, startFile, cancelFile } = slowpokeConfig("pb-gw-hangup-");
    const serve = await startHttpServe(file);
    try {
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${serve.token}`,
      };
      const init = await fetch(serve.url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hangup", version: "1" } },
        }),
      });
      const session = init.headers.get("mcp-session-id")!;
      await init.text();
      const h = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
      await (
        await fetch(serve.url, {
          method: "POST",
          headers: h,
          body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
        })
      ).text();
      const hangup = new AbortController();
      const call = fetch(serve.url, {
        method: "POST",
        headers: h,
        signal: hangup.signal,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "slowpoke__slow", arguments: { ms: 30_000 } },
        }),
      });
      call.catch(() => undefined);
      await until(() => existsSync(startFile), 30_000, "the call to reach the upstream server");
      hangup.abort();
      await until(() => existsSync(cancelFile), 15_000, "the upstream server to record the cancellation");
      const status = (await (
        await fetch(`${serve.base}/status`, { headers: { authorization: `Bearer ${serve.token}` } })
      ).json()) as { instances: { id: string; calls: number; errors: number }[] };
      expect(status.instances.find((i) => i.id === "mcpConnectors/slowpoke")).toMatchObject({ calls: 1, errors: 1 });
    } finally {
      await serve.stop();
    }
  }, 90_000);
});
