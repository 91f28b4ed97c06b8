/**
 * What a Streamable HTTP server sends mcp-remote is bounded as what a stdio server sends is: one
 * message at most 10 MiB, a JSON body or an SSE event alike, in a worker thread and on the host's
 * own thread ("isolation": "host", where the SDK's unbounded read would be the gateway's heap).
 * Past it the call fails with a coded error that says why, and the instance keeps serving.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootMcp, type HttpFixture, startHttpFixture, type TestHost } from "./_host.js";

const HOSTILE_HTTP = fileURLToPath(new URL("../fixtures/mcp/hostile-http-server.mjs", import.meta.url));

let server: HttpFixture;
let t: TestHost;
beforeAll(async () => {
  server = await startHttpFixture(HOSTILE_HTTP);
  t = await bootMcp({
    thread: { plugin: "mcp-remote", timeout_ms: 60_000, config: { url: server.url } },
    host: { plugin: "mcp-remote", isolation: "host", timeout_ms: 60_000, config: { url: server.url } },
  });
});
afterAll(async () => {
  await t?.host.close();
  await server?.stop();
});

describe.each(["thread", "host"])("an HTTP server that answers too much (mcp-remote in its %s)", (name) => {
  const call = (tool: string) => t.host.call(`mcpConnectors/${name}`, "call", [tool, {}]);

  it.each([
    ["a 12 MB JSON body", "huge-json"],
    ["a 12 MB SSE event", "huge-sse"],
    ["an SSE event that never ends", "endless-sse"],
  ])("%s fails the call with a coded error that says why, and the instance serves on", async (_what, tool) => {
    await expect(call("small")).resolves.toMatchObject({ content: [{ type: "text", text: "fine" }] });
    await expect(call(tool)).rejects.toMatchObject({
      code: expect.stringMatching(/^PB_ERR_/),
      message: expect.stringMatching(new RegExp(`mcpConnectors/${name}.*larger than 10 MiB`)),
    });
    await expect(call("small")).resolves.toMatchObject({ content: [{ type: "text", text: "fine" }] });
  });
});
