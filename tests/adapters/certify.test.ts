/**
 * The parts of `adapter certify` that need no real client: the Messages API stub speaks the
 * streamed shape a client parses (checked with a plain fetch), stays on 127.0.0.1, and certify
 * refuses a client it has no driver for, or one that does not run, writing nothing.
 * (The real-client runs are in real-client.test.ts.)
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startMessagesStub } from "../../src/adapter/certify/messages-stub.js";
import { cleanupTempDirs } from "../helpers.js";
import { makeWorld } from "./_world.js";

afterAll(cleanupTempDirs);

describe("the Messages API stub", () => {
  it("answers HEAD / and streams a tool call as SSE events in order, keeping each request body", async () => {
    const stub = await startMessagesStub(() => [{ type: "text", text: "hi" }, { type: "tool_use", name: "Write", input: { file_path: "/x" } }]);
    try {
      expect(new URL(stub.url).hostname).toBe("127.0.0.1");
      expect((await fetch(stub.url, { method: "HEAD" })).status).toBe(200);
      const res = await fetch(`${stub.url}/v1/messages?beta=true`, { method: "POST", body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "marker-55" }] }) });
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const events = (await res.text()).split("\n").filter((l) => l.startsWith("event: ")).map((l) => l.slice(7));
      expect(events).toEqual(["message_start", "content_block_start", "content_block_delta", "content_block_stop", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
      expect(stub.requests[0].text).toContain("marker-55");
      expect((await fetch(`${stub.url}/v1/other`, { method: "POST", body: "{}" })).status).toBe(404);
      expect((await fetch(`${stub.url}/v1/messages`, { method: "POST", body: "{not json" })).status).toBe(400);
    } finally {
      await stub.close();
    }
  });
});

describe("adapter certify refuses", () => {
  it("a client it cannot run, and an adapter whose client has no driver, writing nothing", async () => {
    const world = makeWorld({ adapters: { fx: { plugin: "fx-adapter" } } });
    const missing = await world.cli(["adapter", "certify", "fx", "--client", path.join(world.bin, "nope"), "--json"]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: "PB_ERR_ADAPTER_CERTIFY_FAILED" });
    const nodriver = await world.cli(["adapter", "certify", "fx", "--client", path.join(world.bin, "fxclient")]);
    expect(nodriver.code).toBe(1);
    expect(nodriver.stderr).toContain("PB_ERR_ADAPTER_CERTIFY_FAILED");
    expect(nodriver.stderr).toContain("No certification driver for fx-adapter");
    const usage = await world.cli(["adapter", "certify", "fx"]);
    expect(usage.code).toBe(2);
    expect(existsSync(path.join(world.stateDir, "certification"))).toBe(false);
  });
});
