import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotImplementedError } from "patchbay/plugin";
import type { DeliveryPayload } from "patchbay/plugin";
import fileDrop from "../../plugins/file-drop-agent/src/index.js";
import noop from "../../plugins/noop-agent/src/index.js";
import { CONTRACT_SCHEMAS } from "../../src/contract/schemas.js";
import { DeliveryPayloadSchema, DeliveryReceiptSchema } from "../../src/contract/schemas/agent.js";
import { makeCtx } from "./_ctx.js";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-file-drop-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function payload(dispatch_id: string, extra: Partial<DeliveryPayload> = {}): DeliveryPayload {
  return {
    kind: "augment",
    content: "The build is green.",
    format: "markdown",
    source_skill: "ci-watch",
    meta: {
      dispatch_id,
      sent_at: 1_700_000_000_000,
      origin: { skill_name: "ci-watch", trigger_kind: "cron" },
      event_type: "ci",
    },
    ...extra,
  } as DeliveryPayload;
}

function makeFileDrop(raw: Record<string, unknown> = {}) {
  const { ctx, lines } = makeCtx();
  const agent = fileDrop.create(fileDrop.config.parse({ dir: join(dir, "outbox"), ...raw }), ctx) as Awaited<
    ReturnType<typeof fileDrop.create>
  >;
  return { agent, lines, outbox: join(dir, "outbox") };
}

describe("file-drop-agent", () => {
  it("writes <dispatch_id>.json holding agent_id, the whole payload with meta, and delivered_at", async () => {
    const { agent, outbox } = makeFileDrop({ agents: ["perry", "ops"] });
    const p = payload("3f1c9a7e-1b2c-4d5e-8f90-123456789abc");
    expect(DeliveryPayloadSchema.parse(p)).toBeTruthy();
    const before = Date.now();
    const receipt = await agent.deliver("perry", p);
    expect(DeliveryReceiptSchema.parse(receipt)).toBeTruthy();
    expect(receipt.delivery_id).toBe(p.meta.dispatch_id);
    expect(receipt.delivered_at).toBeGreaterThanOrEqual(before);

    expect(readdirSync(outbox)).toEqual([`${p.meta.dispatch_id}.json`]);
    const file = JSON.parse(readFileSync(join(outbox, `${p.meta.dispatch_id}.json`), "utf8"));
    expect(file).toEqual({ type: "delivery", agent_id: "perry", delivered_at: receipt.delivered_at, payload: p });
    // queue lag is observable from the file alone
    expect(file.delivered_at - file.payload.meta.sent_at).toBeGreaterThan(0);
  });

  it("redelivering a dispatch_id replaces its file (idempotent), template payloads too", async () => {
    const { agent, outbox } = makeFileDrop();
    await agent.deliver("default", payload("d-1"));
    const tpl = { kind: "template", prompt: "Summarise the incident.", meta: payload("d-1").meta } as DeliveryPayload;
    await agent.deliver("default", tpl);
    expect(readdirSync(outbox)).toEqual(["d-1.json"]);
    expect(JSON.parse(readFileSync(join(outbox, "d-1.json"), "utf8")).payload).toEqual(tpl);
  });

  it("refuses dispatch ids that are not safe file names, before touching the disk", async () => {
    const { agent, outbox } = makeFileDrop();
    for (const bad of ["../escape", "a/b", "..", ".hidden", "x\u0000y", "back\\slash", "", "con", "trailing."]) {
      await expect(agent.deliver("default", payload(bad)), bad).rejects.toThrow(/invalid meta\.dispatch_id/);
    }
    expect(existsSync(outbox)).toBe(false);
    expect(existsSync(join(dir, "escape.json"))).toBe(false);
  });

  it("throws a clear error for an unknown agent", async () => {
    const { agent } = makeFileDrop({ agents: ["perry"] });
    await expect(agent.deliver("mallory", payload("d-2"))).rejects.toThrow(/unknown agent "mallory".*perry/);
    await expect(agent.wake("mallory")).rejects.toThrow(/unknown agent/);
    await expect(agent.agent_status!("mallory")).rejects.toThrow(/unknown agent/);
  });

  it("wake writes a wake-<agent>-<ts>.json marker; agent_status reports asleep (files waiting) then idle", async () => {
    const { agent, outbox } = makeFileDrop({ agents: ["a", "b"] });
    expect(await agent.agent_status!("a")).toBe("idle");
    const wake = await agent.wake("a", { context: "new mail" });
    expect(CONTRACT_SCHEMAS.agent.wake.result.parse(wake)).toBeTruthy();
    const marker = `wake-a-${wake.woken_at}.json`;
    expect(JSON.parse(readFileSync(join(outbox, marker), "utf8"))).toEqual({
      type: "wake",
      agent_id: "a",
      woken_at: wake.woken_at,
      opts: { context: "new mail" },
    });

    await agent.deliver("a", payload("d-a1"));
    await agent.deliver("a", payload("d-a2"));
    await agent.deliver("b", payload("d-b1"));
    writeFileSync(join(outbox, "garbage.json"), "{not json");
    const status = await agent.agent_status!("a");
    expect(CONTRACT_SCHEMAS.agent.agent_status.result.parse(status)).toBeTruthy();
    expect(status).toBe("asleep");
    expect(await agent.agent_status!("b")).toBe("asleep");

    // the consumer takes the files away
    for (const f of ["d-a1.json", "d-a2.json", marker]) rmSync(join(outbox, f));
    expect(await agent.agent_status!("a")).toBe("idle");
  });

  it("lists agents from config, refuses request_response, checks the folder is writable", async () => {
    const { agent } = makeFileDrop({ agents: ["x", "y"] });
    expect(await agent.list_agents()).toEqual([{ agent_id: "x" }, { agent_id: "y" }]);
    expect(await makeFileDrop().agent.list_agents()).toEqual([{ agent_id: "default" }]);
    await expect(agent.request_response("x", payload("d"), { correlation_id: "c" })).rejects.toBeInstanceOf(
      NotImplementedError,
    );
    expect(await agent.health_check()).toBe(true);
    writeFileSync(join(dir, "file"), "x");
    const blocked = fileDrop.create(fileDrop.config.parse({ dir: join(dir, "file", "sub") }), makeCtx().ctx);
    expect(await (await blocked).health_check()).toBe(false);
  });

  it("validates its config: agent ids are file-name safe and unique", () => {
    expect(() => fileDrop.config.parse({ dir: "/x", agents: ["../up"] })).toThrow(/agent id/);
    expect(() => fileDrop.config.parse({ dir: "/x", agents: ["a", "a"] })).toThrow(/unique/);
    expect(() => fileDrop.config.parse({ dir: "/x", agents: [] })).toThrow();
    expect(() => fileDrop.config.parse({ agents: ["a"] })).toThrow();
  });
});

describe("noop-agent", () => {
  it("logs and resolves: skipped deliveries, wakes, agents from config", async () => {
    const { ctx, lines } = makeCtx();
    const agent = await noop.create(noop.config.parse({ agents: ["perry"] }), ctx);
    expect(await agent.health_check()).toBe(true);
    expect(await agent.list_agents()).toEqual([{ agent_id: "perry" }]);
    const receipt = await agent.deliver("perry", payload("d-9"));
    expect(DeliveryReceiptSchema.parse(receipt)).toBeTruthy();
    expect(receipt.delivery_skipped).toBe(true);
    expect(typeof receipt.delivered_at).toBe("number");
    expect((await agent.wake("perry")).woken_at).toBeGreaterThan(0);
    await expect(agent.request_response("perry", payload("d"), { correlation_id: "c" })).rejects.toThrow(
      /not implemented/,
    );
    expect(lines.some((l) => l.level === "info" && l.data?.dispatch_id === "d-9")).toBe(true);

    await agent.deliver("stranger", payload("d-10"));
    expect(lines.some((l) => l.level === "warn" && l.data?.agent_id === "stranger")).toBe(true);

    const defaults = await noop.create(noop.config.parse({}), makeCtx().ctx);
    expect(await defaults.list_agents()).toEqual([{ agent_id: "default" }]);
  });
});
