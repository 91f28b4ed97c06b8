/**
 * The agent rules the host enforces (seeds 000 and 001), with fixtures that break them: the host
 * fills DeliveryMeta on every delivery (a fresh dispatch_id, its own sent_at; neither a caller
 * nor a plugin calling through a grant can forge them), receipts are recorded with sent_at so
 * queue lag is observable, delivered_at never predates sent_at, request_response echoes
 * correlation_id, shapes follow the seed, and broadcast shares one dispatch_id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, writeConfig } from "../helpers.js";

let host: Host;

beforeAll(async () => {
  const { file } = writeConfig({
    agentConnectors: {
      echo: { plugin: "fx-agent-echo", config: { agents: ["perry", "ops"] } },
      sink: { plugin: "fx-agent-echo", config: { agents: ["perry"], reply: false } },
      forger: {
        plugin: "fx-agent-echo",
        config: { agents: ["other"], forward: "agentConnectors/sink" },
        grants: ["agentConnectors/sink"],
      },
      backdated: { plugin: "fx-agent-backdated" },
      noecho: { plugin: "fx-agent-no-echo" },
      shapes: { plugin: "fx-agent-bad-shapes" },
    },
  });
  host = await createHost({ config: file, logLevel: "silent" });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

type Seen = {
  kind: string;
  meta: {
    dispatch_id: string;
    sent_at: number;
    origin: { skill_name: string; trigger_kind: string };
    event_type?: string;
  };
  source_skill?: string;
  templates?: string[];
};
const seen = (receipt: { delivery_id?: string }) => JSON.parse(receipt.delivery_id!) as Seen;

describe("agent contract, enforced by the host", () => {
  it("fills meta on every delivery: a fresh dispatch_id, the host's sent_at, the caller's origin and provenance kept", async () => {
    const before = Date.now();
    const payload = {
      kind: "augment" as const,
      content: "hi",
      source_skill: "stock-monitor",
      templates: ["follow-up"],
      triggered_by: { source: "cron" as const, name: "0 8 * * *", fired_at_ms: before },
      meta: {
        origin: { skill_name: "stock-monitor", trigger_kind: "cron" as const },
        event_type: "price.alert",
        dispatch_id: "forged",
        sent_at: 1,
      },
    };
    const a = seen(await host.agent("echo").deliver("perry", payload as never));
    const b = seen(await host.agent("echo").deliver("perry", payload as never));
    expect(a.meta.dispatch_id).not.toBe("forged");
    expect(a.meta.dispatch_id).not.toBe(b.meta.dispatch_id);
    expect(a.meta.sent_at).toBeGreaterThanOrEqual(before);
    expect(a).toMatchObject({
      source_skill: "stock-monitor",
      templates: ["follow-up"],
      meta: { origin: { skill_name: "stock-monitor", trigger_kind: "cron" }, event_type: "price.alert" },
    });
    const template = seen(await host.agent("echo").deliver("ops", { kind: "template", prompt: "run the playbook" }));
    expect(template.meta.origin).toEqual({ skill_name: "patchbay", trigger_kind: "inline" });
  });

  it("refuses payloads outside the seed: unknown kind, unknown meta or provenance keys", async () => {
    await expect(host.agent("echo").deliver("perry", { kind: "binary", data: "x" } as never)).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_ARGS",
    });
    await expect(
      host.agent("echo").deliver("perry", {
        kind: "augment",
        content: "x",
        meta: { origin: { skill_name: "s", trigger_kind: "cron" }, urgency: 9 },
      } as never),
    ).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS", message: expect.stringContaining("urgency") });
    await expect(
      host.agent("echo").deliver("perry", {
        kind: "augment",
        content: "x",
        triggered_by: { source: "telepathy", name: "n", fired_at_ms: 1 },
      } as never),
    ).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS" });
  });

  it("replaces a meta a plugin forges when it delivers through a granted connector", async () => {
    const receipt = await host.agent("forger").deliver("other", { kind: "augment", content: "relayed" });
    const inner = seen(receipt);
    expect(inner.meta.dispatch_id).not.toBe("forged-by-plugin");
    expect(inner.meta.sent_at).toBeGreaterThan(1);
    const recorded = host.receipts({ instance: "agentConnectors/sink" }).at(-1)!;
    expect(recorded.dispatch_id).toBe(inner.meta.dispatch_id);
  });

  it("records every delivery with sent_at and delivered_at, so queue lag is observable", async () => {
    const receipt = await host.agent("echo").deliver("perry", {
      kind: "augment",
      content: "lag",
      meta: { origin: { skill_name: "s", trigger_kind: "cli" }, correlation_id: "c-1" },
    });
    const record = host.receipts({ instance: "agentConnectors/echo", dispatch_id: seen(receipt).meta.dispatch_id })[0];
    expect(record).toMatchObject({
      agent_id: "perry",
      kind: "augment",
      ok: true,
      delivered_at: receipt.delivered_at,
      correlation_id: "c-1",
      delivery_skipped: false,
      error: null,
    });
    expect(record.lag_ms).toBe(record.delivered_at! - record.sent_at);
    expect(record.lag_ms).toBeGreaterThanOrEqual(0);
  });

  it("refuses a receipt whose delivered_at is before the host's sent_at, and records the failure", async () => {
    const err = await host
      .agent("backdated")
      .deliver("perry", { kind: "augment", content: "x" })
      .catch((e) => e);
    expect(err).toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining("before the host's sent_at"),
    });
    expect(host.receipts({ instance: "agentConnectors/backdated" }).at(-1)).toMatchObject({
      ok: false,
      delivered_at: null,
      error: { code: "PB_ERR_CONTRACT_VIOLATION" },
    });
  });

  it("requires a correlation_id for request_response, copies it into meta, and refuses a reply that does not echo it", async () => {
    await expect(
      host.agent("echo").request_response("perry", { kind: "augment", content: "q" }, {} as never),
    ).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS", message: expect.stringContaining("correlation_id") });
    await expect(
      host.agent("echo").request_response("perry", { kind: "augment", content: "q" }, { correlation_id: "c-7" }),
    ).resolves.toMatchObject({ correlation_id: "c-7", content: "reply to augment; meta says c-7" });
    // Given in meta only, it counts as the option.
    await expect(
      host
        .agent("echo")
        .request_response("perry", { kind: "augment", content: "q", meta: { correlation_id: "c-8" } }, {} as never),
    ).resolves.toMatchObject({ correlation_id: "c-8" });
    await expect(
      host
        .agent("echo")
        .request_response(
          "perry",
          { kind: "augment", content: "q", meta: { correlation_id: "c-9" } },
          { correlation_id: "c-10" },
        ),
    ).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS" });
    await expect(
      host.agent("noecho").request_response("perry", { kind: "augment", content: "q" }, { correlation_id: "c-11" }),
    ).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_VIOLATION", data: { expected: "c-11", got: "not-yours" } });
    await expect(
      host.agent("sink").request_response("perry", { kind: "augment", content: "q" }, { correlation_id: "c-12" }),
    ).rejects.toMatchObject({ code: "PB_ERR_NOT_IMPLEMENTED" });
  });

  it("refuses results outside the seed's shapes: duplicate agent_ids, an unknown status, a wake receipt without woken_at", async () => {
    await expect(host.agent("shapes").list_agents()).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining('"perry" twice'),
    });
    await expect(host.agent("shapes").agent_status("perry")).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
    });
    await expect(host.agent("shapes").wake("perry")).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining("woken_at"),
    });
    await expect(host.agent("echo").agent_status("perry")).resolves.toBe("active");
    await expect(host.agent("echo").wake("perry", { when: "later" } as never)).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_ARGS",
    });
    await expect(host.agent("backdated").agent_status("perry")).rejects.toMatchObject({
      code: "PB_ERR_METHOD_UNDECLARED",
    });
  });

  it("broadcasts through every connector listing the agent, all with one dispatch_id and sent_at", async () => {
    const result = await host.broadcast("perry", { kind: "augment", content: "all hands" });
    // echo and sink list perry; forger lists "other"; backdated, noecho and shapes list perry too but fail or are broken.
    const byInstance = Object.fromEntries(result.deliveries.map((d) => [d.instance, d.ok]));
    expect(byInstance).toMatchObject({
      "agentConnectors/echo": true,
      "agentConnectors/sink": true,
      "agentConnectors/backdated": false,
      "agentConnectors/noecho": true,
    });
    expect(byInstance).not.toHaveProperty("agentConnectors/forger");
    expect(result.unreachable.map((u) => u.instance)).toEqual(["agentConnectors/shapes"]);
    // echo and sink answer with what reached them: both saw the broadcast's one dispatch_id and sent_at.
    const shown = result.deliveries.flatMap((d) =>
      d.ok && d.receipt.delivery_id?.startsWith("{") ? [{ instance: d.instance, meta: seen(d.receipt).meta }] : [],
    );
    expect(shown.map((d) => d.instance).sort()).toEqual(["agentConnectors/echo", "agentConnectors/sink"]);
    for (const d of shown) expect(d.meta).toMatchObject({ dispatch_id: result.dispatch_id, sent_at: result.sent_at });
    const records = host.receipts({ dispatch_id: result.dispatch_id });
    expect(records).toHaveLength(result.deliveries.length);
    expect(new Set(records.map((r) => r.sent_at))).toEqual(new Set([result.sent_at]));

    const next = await host.broadcast("perry", { kind: "augment", content: "again" });
    expect(next.dispatch_id).not.toBe(result.dispatch_id);
    await expect(host.broadcast("nobody", { kind: "augment", content: "x" })).rejects.toMatchObject({
      code: "PB_ERR_AGENT_NOT_FOUND",
      data: { agent_id: "nobody" },
    });
  });
});
