/**
 * ollama against the local-model kit, booted by the host like any plugin, talking to a real
 * HTTP server on 127.0.0.1 that speaks the Ollama API. The invalid config names a model the
 * server has not pulled: the server answers, so health must look at the model list, not just
 * at the connection.
 */
import { afterAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { registerConformance, createHost } from "patchbay/testing";
import { EMBED_DIM, startFakeOllama } from "./ollama-server.js";

const server = await startFakeOllama(["gemma2:9b", "qwen2.5:7b"]);
afterAll(() => server.close());

const plugin = fileURLToPath(new URL("..", import.meta.url));

await registerConformance("local-model", {
  plugin,
  config: { base_url: server.url, model: "gemma2:9b" },
  invalidConfig: { base_url: server.url, model: "not-pulled:1b" },
  localModel: { prompt: "Say hello.", model: "qwen2.5:7b" },
});

describe("ollama through the host", () => {
  it("sends run() options as Ollama options and embeds with the configured model", async () => {
    const host = await createHost({
      config: {
        plugins: [],
        localModels: { gemma2: { plugin: "ollama", config: { base_url: server.url, model: "gemma2:9b" } } },
      },
      logLevel: "silent",
    });
    try {
      const model = host.model("gemma2");
      await expect(model.run("hi", { max_tokens: 5, temperature: 0.2, model: "qwen2.5:7b" })).resolves.toBe(
        "hello from qwen2.5:7b: hi",
      );
      const generate = server.requests.filter((r) => r.path === "/api/generate").at(-1)!;
      expect(generate.body).toMatchObject({
        model: "qwen2.5:7b",
        prompt: "hi",
        stream: false,
        options: { num_predict: 5, temperature: 0.2 },
      });
      const vectors = await model.embed(["a", "b"]);
      expect(vectors.map((v) => v.length)).toEqual([EMBED_DIM, EMBED_DIM]);
      // An unknown model is the server's 404, surfaced as the plugin's error, not a crash.
      await expect(model.run("hi", { model: "missing:1b" })).rejects.toMatchObject({
        code: "PB_ERR_PLUGIN_THREW",
        message: expect.stringContaining("not found"),
      });
    } finally {
      await host.close();
    }
  });
});
