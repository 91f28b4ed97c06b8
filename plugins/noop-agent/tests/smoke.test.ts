// Self-contained smoke test of this plugin folder (the full suite is tests/plugins/agents.test.ts).
import { expect, it } from "vitest";
import type { PluginContext } from "patchbay/plugin";
import plugin from "../src/index.js";

const logged: string[] = [];
const log = (a: unknown, b?: unknown) => void logged.push(typeof a === "string" ? a : String(b));
const ctx: PluginContext = {
  instance: "agentConnectors/smoke",
  log: { trace: log, debug: log, info: log, warn: log, error: log },
  signal: new AbortController().signal,
  remainingMs: () => 5_000,
  connectors: {
    get: () => {
      throw new Error("none");
    },
    list: () => [],
  },
};

it("acknowledges deliveries as skipped and logs them", async () => {
  const agent = await plugin.create(plugin.config.parse({}), ctx);
  expect(await agent.health_check()).toBe(true);
  expect(await agent.list_agents()).toEqual([{ agent_id: "default" }]);
  const meta = { dispatch_id: "d", sent_at: Date.now(), origin: { skill_name: "smoke", trigger_kind: "cli" as const } };
  expect(await agent.deliver("default", { kind: "template", prompt: "p", meta })).toMatchObject({
    delivery_skipped: true,
  });
  expect(logged.length).toBeGreaterThan(0);
  await expect(
    agent.request_response("default", { kind: "template", prompt: "p", meta }, { correlation_id: "c" }),
  ).rejects.toThrow(/not implemented/);
});
