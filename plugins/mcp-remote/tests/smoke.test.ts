// Self-contained smoke test of this plugin folder (the full suite, against a real MCP server over
// stdio and HTTP, is tests/plugins/mcp-remote.test.ts).
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { expect, it } from "vitest";
import type { PluginContext } from "patchbay/plugin";
import plugin from "../src/index.js";

const noop = () => {};
const ctx: PluginContext = {
  instance: "mcpConnectors/smoke",
  log: { trace: noop, debug: noop, info: noop, warn: noop, error: noop },
  signal: new AbortController().signal,
  remainingMs: () => 2_000,
  connectors: {
    get: () => {
      throw new Error("none");
    },
    list: () => [],
  },
};

it("needs exactly one of url and command", () => {
  expect(() => plugin.config.parse({})).toThrow(/exactly one/);
  expect(() => plugin.config.parse({ url: "http://127.0.0.1/mcp", command: "node" })).toThrow(/exactly one/);
});

it("is unhealthy, without throwing, when nothing listens", async () => {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  const mcp = await plugin.create(plugin.config.parse({ url: `http://127.0.0.1:${port}/mcp` }), ctx);
  expect(await mcp.health_check()).toBe(false);
  await mcp.close?.();
});
