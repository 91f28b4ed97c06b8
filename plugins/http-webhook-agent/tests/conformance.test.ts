/**
 * http-webhook-agent against the agent kit, booted by the host like any plugin, posting to a
 * real node:http receiver that verifies the HMAC signature; then the parts only a webhook has:
 * the body and headers a receiver sees, bad signatures, timeouts, request/response, broadcast.
 */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, registerConformance } from "patchbay/testing";
import type { Host } from "patchbay";
import { startReceiver } from "./receiver.js";

const SECRET = "kit-webhook-secret-0123456789";
const plugin = fileURLToPath(new URL("..", import.meta.url));
const receiver = await startReceiver(SECRET);
afterAll(() => receiver.close());

async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

await registerConformance("agent", {
  plugin,
  config: { agents: { perry: { url: `${receiver.url}/agents/perry`, name: "Perry" } }, secret: SECRET },
  invalidConfig: { agents: { perry: { url: `http://127.0.0.1:${await deadPort()}/agents/perry` } }, secret: SECRET },
  agent: { agentId: "perry" },
});

describe("http-webhook-agent through the host", () => {
  let host: Host;
  const agents = (base: string) => ({
    perry: { url: `${base}/agents/perry`, wake_url: `${base}/agents/perry/wake` },
    broken: { url: `${base}/broken` },
    skipper: { url: `${base}/skip` },
    liar: { url: `${base}/liar` },
  });

  beforeAll(async () => {
    host = await createHost({
      config: {
        plugins: [],
        agentConnectors: {
          primary: { plugin: "http-webhook-agent", config: { agents: agents(receiver.url), secret: SECRET } },
          impatient: {
            plugin: "http-webhook-agent",
            config: { agents: { slow: { url: `${receiver.url}/slow` } }, secret: SECRET, timeout_ms: 500 },
          },
          "wrong-secret": {
            plugin: "http-webhook-agent",
            required: false,
            config: { agents: { perry: { url: `${receiver.url}/agents/perry` } }, secret: "not-the-receivers-secret" },
          },
          mirror: {
            plugin: "http-webhook-agent",
            config: { agents: { perry: { url: `${receiver.url}/mirror/perry` } }, secret: SECRET },
          },
        },
      },
      logLevel: "silent",
    });
  });
  afterAll(() => host?.close());

  it("POSTs the payload with the host's meta, provenance and a verifiable signature", async () => {
    const receipt = await host.agent().deliver("perry", {
      kind: "augment",
      content: "build is red",
      source_skill: "ci-watch",
      delivery_context: "CI failed on main",
      meta: { origin: { skill_name: "ci-watch", trigger_kind: "cron" }, event_type: "ci.failed" },
    });
    const got = receiver.received.at(-1)!;
    expect(got.path).toBe("/agents/perry");
    expect(got.body).toMatchObject({
      agent_id: "perry",
      kind: "augment",
      content: "build is red",
      source_skill: "ci-watch",
      delivery_context: "CI failed on main",
    });
    const meta = got.body.meta as { dispatch_id: string; sent_at: number; event_type: string };
    expect(meta.event_type).toBe("ci.failed");
    expect(got.headers["x-patchbay-dispatch-id"]).toBe(meta.dispatch_id);
    expect(got.headers["x-patchbay-event"]).toBe("delivery");
    expect(receipt.delivery_id).toMatch(/^rcv-/);
    const record = host.receipts({ dispatch_id: meta.dispatch_id })[0];
    expect(record).toMatchObject({
      instance: "agentConnectors/primary",
      ok: true,
      sent_at: meta.sent_at,
      delivered_at: receipt.delivered_at,
    });
    expect(record.lag_ms).toBeGreaterThanOrEqual(0);
  });

  it("fails a delivery the receiver rejects (bad signature, 500) and records it as failed", async () => {
    await expect(host.agent("wrong-secret").deliver("perry", { kind: "augment", content: "x" })).rejects.toMatchObject({
      code: "PB_ERR_PLUGIN_THREW",
      message: expect.stringContaining("401"),
    });
    await expect(host.agent().deliver("broken", { kind: "template", prompt: "x" })).rejects.toMatchObject({
      message: expect.stringContaining("500"),
    });
    const failed = host.receipts({ agent_id: "broken" }).at(-1)!;
    expect(failed).toMatchObject({ ok: false, delivered_at: null, error: { code: "PB_ERR_PLUGIN_THREW" } });
    expect(failed.error!.message).not.toContain(SECRET);
  });

  it("bounds a receiver that never answers by timeout_ms", async () => {
    await expect(host.agent("impatient").deliver("slow", { kind: "augment", content: "x" })).rejects.toMatchObject({
      message: expect.stringContaining("timed out after 500 ms"),
    });
  });

  it("passes delivery_skipped through, wakes at wake_url, and answers requests echoing correlation_id", async () => {
    expect(await host.agent().deliver("skipper", { kind: "augment", content: "x" })).toMatchObject({
      delivery_skipped: true,
    });
    expect(await host.agent().wake("perry", { context: "new mail" })).toMatchObject({ session_id: "session-1" });
    expect(receiver.received.at(-1)).toMatchObject({
      path: "/agents/perry/wake",
      body: { kind: "wake", agent_id: "perry", context: "new mail" },
    });
    const reply = await host
      .agent()
      .request_response("perry", { kind: "augment", content: "ping" }, { correlation_id: "c-42" });
    expect(reply).toMatchObject({ correlation_id: "c-42", content: "pong: ping" });
    expect((receiver.received.at(-1)!.body.meta as { correlation_id: string }).correlation_id).toBe("c-42");
    await expect(
      host.agent().request_response("liar", { kind: "augment", content: "ping" }, { correlation_id: "c-43" }),
    ).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_VIOLATION", data: { expected: "c-43", got: "someone-else" } });
  });

  it("broadcasts to every connector listing the agent with one dispatch_id", async () => {
    const before = receiver.received.length;
    const result = await host.broadcast("perry", { kind: "augment", content: "all hands" });
    expect(result.deliveries.map((d) => [d.instance, d.ok])).toEqual([
      ["agentConnectors/primary", true],
      ["agentConnectors/wrong-secret", false],
      ["agentConnectors/mirror", true],
    ]);
    const seen = receiver.received
      .slice(before)
      .map((r) => [r.path, (r.body.meta as { dispatch_id: string }).dispatch_id]);
    expect(seen.map(([p]) => p).sort()).toEqual(["/agents/perry", "/mirror/perry"]);
    expect(new Set(seen.map(([, d]) => d))).toEqual(new Set([result.dispatch_id]));
    expect(host.receipts({ dispatch_id: result.dispatch_id }).map((r) => r.sent_at)).toEqual([
      result.sent_at,
      result.sent_at,
      result.sent_at,
    ]);
    await expect(host.broadcast("nobody", { kind: "augment", content: "x" })).rejects.toMatchObject({
      code: "PB_ERR_AGENT_NOT_FOUND",
    });
  });

  it("reports an endpoint that answers 404 as unhealthy", async () => {
    const probe = await createHost({
      config: {
        plugins: [],
        agentConnectors: {
          p: {
            plugin: "http-webhook-agent",
            required: false,
            config: { agents: { perry: { url: `${receiver.url}/missing` } } },
          },
        },
      },
      logLevel: "silent",
    });
    try {
      expect(probe.report().instances[0]).toMatchObject({ state: "degraded", error: { code: "PB_ERR_HEALTH_FAILED" } });
    } finally {
      await probe.close();
    }
  });
});
