/**
 * The parts of `adapter certify` that need no real client: each model API stub (Messages,
 * Responses, generateContent) speaks the streamed shape a client parses (checked with a plain
 * fetch), stays on 127.0.0.1, and certify
 * refuses a client it has no driver for, or one that does not run, writing nothing.
 * (The real-client runs are in real-client.test.ts.)
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startMessagesStub } from "../../src/adapter/certify/messages-stub.js";
import { startResponsesStub } from "../../src/adapter/certify/responses-stub.js";
import { startGenerateContentStub } from "../../src/adapter/certify/generate-content-stub.js";
import { cleanupTempDirs } from "../helpers.js";
import { makeWorld } from "./_world.js";

afterAll(cleanupTempDirs);

describe("the Messages API stub", () => {
  it("answers HEAD / and streams a tool call as SSE events in order, keeping each request body", async () => {
    const stub = await startMessagesStub(() => [
      { type: "text", text: "hi" },
      { type: "tool_use", name: "Write", input: { file_path: "/x" } },
    ]);
    try {
      expect(new URL(stub.url).hostname).toBe("127.0.0.1");
      expect((await fetch(stub.url, { method: "HEAD" })).status).toBe(200);
      const res = await fetch(`${stub.url}/v1/messages?beta=true`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "marker-55" }] }),
      });
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const events = (await res.text())
        .split("\n")
        .filter((l) => l.startsWith("event: "))
        .map((l) => l.slice(7));
      expect(events).toEqual([
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ]);
      expect(stub.requests[0].text).toContain("marker-55");
      expect((await fetch(`${stub.url}/v1/other`, { method: "POST", body: "{}" })).status).toBe(404);
      expect((await fetch(`${stub.url}/v1/messages`, { method: "POST", body: "{not json" })).status).toBe(400);
    } finally {
      await stub.close();
    }
  });
});

const sse = async (res: Response) =>
  (await res.text())
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);

describe("the Responses API stub", () => {
  it("streams function and custom tool calls as output items, then response.completed, keeping each body", async () => {
    const stub = await startResponsesStub(() => [
      { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch" },
      { type: "function_call", name: "exec_command", arguments: { cmd: "ls" } },
    ]);
    try {
      expect(new URL(stub.url).hostname).toBe("127.0.0.1");
      const res = await fetch(`${stub.url}/v1/responses`, {
        method: "POST",
        body: JSON.stringify({ model: "m", input: [{ role: "user", content: "marker-56" }] }),
      });
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const events = await sse(res);
      expect(events.map((e) => e.type)).toEqual([
        "response.created",
        "response.output_item.added",
        "response.output_item.done",
        "response.output_item.added",
        "response.output_item.done",
        "response.completed",
      ]);
      expect(events[2].item).toMatchObject({
        type: "custom_tool_call",
        name: "apply_patch",
        input: "*** Begin Patch",
        call_id: expect.any(String),
      });
      expect(events[4].item).toMatchObject({ type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}' });
      expect(stub.requests[0]).toMatchObject({ path: "/v1/responses", text: expect.stringContaining("marker-56") });
      expect((await fetch(`${stub.url}/v1/chat/completions`, { method: "POST", body: "{}" })).status).toBe(404);
    } finally {
      await stub.close();
    }
  });
});

describe("the generateContent stub", () => {
  it("answers streamGenerateContent as SSE and generateContent as JSON, with function calls", async () => {
    const stub = await startGenerateContentStub(() => [
      { type: "function_call", name: "write_file", args: { file_path: "/x" } },
    ]);
    try {
      const streamed = await sse(
        await fetch(`${stub.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
          method: "POST",
          body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "marker-57" }] }] }),
        }),
      );
      expect(streamed[0]).toMatchObject({
        candidates: [
          { content: { role: "model", parts: [{ functionCall: { name: "write_file", args: { file_path: "/x" } } }] } },
        ],
      });
      const plain = await (
        await fetch(`${stub.url}/v1beta/models/m:generateContent`, { method: "POST", body: "{}" })
      ).json();
      expect(plain).toMatchObject({ candidates: [{ finishReason: "STOP" }] });
      expect(stub.requests[0]).toMatchObject({
        path: "/v1beta/models/m:streamGenerateContent?alt=sse",
        text: expect.stringContaining("marker-57"),
      });
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
    expect(nodriver.stderr).toContain("declares no certifyDriver");
    const usage = await world.cli(["adapter", "certify", "fx"]);
    expect(usage.code).toBe(2);
    expect(existsSync(path.join(world.stateDir, "certification"))).toBe(false);
  });
});
