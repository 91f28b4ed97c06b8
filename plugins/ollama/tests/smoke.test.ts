// Self-contained smoke test of this plugin folder (the full suite is tests/plugins/ollama.test.ts).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it } from "vitest";
import type { PluginContext } from "patchbay/plugin";
import plugin from "../src/index.js";

const noop = () => {};
const ctx: PluginContext = {
  instance: "localModels/smoke",
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

it("talks to an Ollama-shaped server", async () => {
  const server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/api/tags") return res.end(JSON.stringify({ models: [{ name: "tiny:latest" }] }));
    if (req.url === "/api/generate") return res.end(JSON.stringify({ response: "pong", done: true }));
    res.end(JSON.stringify({ embeddings: [[0.1, 0.2]] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const base_url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const model = await plugin.create(plugin.config.parse({ base_url, model: "tiny" }), ctx);
    expect(await model.health_check()).toBe(true);
    expect(await model.run("ping")).toBe("pong");
    expect(await model.embed!(["x"])).toEqual([[0.1, 0.2]]);
    const missing = await plugin.create(plugin.config.parse({ base_url, model: "absent" }), ctx);
    expect(await missing.health_check()).toBe(false);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
