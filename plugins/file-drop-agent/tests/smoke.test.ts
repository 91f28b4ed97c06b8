// Self-contained smoke test of this plugin folder (the full suite is tests/plugins/agents.test.ts).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { PluginContext } from "patchbay/plugin";
import plugin from "../src/index.js";

const noop = () => {};
const ctx: PluginContext = {
  instance: "agentConnectors/smoke",
  log: { trace: noop, debug: noop, info: noop, warn: noop, error: noop },
  signal: new AbortController().signal,
  remainingMs: () => 5_000,
  connectors: {
    get: () => {
      throw new Error("none");
    },
    list: () => [],
  },
};

it("drops a delivery as <dispatch_id>.json", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pb-smoke-"));
  try {
    const agent = await plugin.create(plugin.config.parse({ dir }), ctx);
    expect(await agent.health_check()).toBe(true);
    const meta = {
      dispatch_id: "d-smoke",
      sent_at: Date.now(),
      origin: { skill_name: "smoke", trigger_kind: "cli" as const },
    };
    const receipt = await agent.deliver("default", { kind: "augment", content: "hi", meta });
    expect(receipt.delivery_id).toBe("d-smoke");
    expect(JSON.parse(readFileSync(join(dir, "d-smoke.json"), "utf8"))).toMatchObject({
      agent_id: "default",
      payload: { meta },
    });
    expect(await agent.agent_status!("default")).toBe("asleep");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
