/**
 * The ollama plugin against a real node:http server on 127.0.0.1 that speaks the parts of the
 * Ollama API the plugin uses (/api/tags, /api/generate, /api/embed).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import plugin, { sameModel } from "../../plugins/ollama/src/index.js";
import { CONTRACT_SCHEMAS } from "../../src/contract/schemas.js";
import { makeCtx } from "./_ctx.js";

interface Seen {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let models = ["gemma2:9b", "nomic-embed-text:latest"];
let tagsHang = false;
const hanging = new Set<IncomingMessage>();

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await readJson(req);
    seen.push({ method: req.method!, path: req.url!, body });
    const send = (status: number, data: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(data));
    };
    if (req.method === "GET" && req.url === "/api/tags") {
      if (tagsHang) return; // never answers
      return send(200, { models: models.map((name) => ({ name, model: name, size: 1 })) });
    }
    const model = body?.model as string;
    if (req.method === "POST" && (req.url === "/api/generate" || req.url === "/api/embed")) {
      if (!models.some((m) => sameModel(m, model)))
        return send(404, { error: `model '${model}' not found, try pulling it first` });
      if (body?.prompt === "HANG" || (Array.isArray(body?.input) && body.input[0] === "HANG")) {
        hanging.add(req); // never answers; closed by the client's abort
        req.on("close", () => hanging.delete(req));
        return;
      }
      if (req.url === "/api/generate")
        return send(200, { model, response: `echo: ${body!.prompt as string}`, done: true });
      const input = body!.input as string[];
      return send(200, { model, embeddings: input.map((t, i) => [t.length, i, 0.5]) });
    }
    send(404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
  models = ["gemma2:9b", "nomic-embed-text:latest"];
  tagsHang = false;
});

function make(raw: Record<string, unknown>, remainingMs = 30_000) {
  const t = makeCtx({ remainingMs });
  const model = plugin.create(plugin.config.parse({ base_url: baseUrl, ...raw }), t.ctx) as Awaited<
    ReturnType<typeof plugin.create>
  >;
  return { model, ...t };
}

/** A port nothing listens on: bind one, note it, close it. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

describe("ollama", () => {
  it("run() posts to /api/generate with model, stream:false and options, and returns response", async () => {
    const { model } = make({ model: "gemma2:9b" });
    const out = await model.run("hello there", { max_tokens: 64, temperature: 0.2 });
    expect(CONTRACT_SCHEMAS["local-model"].run.result.parse(out)).toBe("echo: hello there");
    expect(seen).toEqual([
      {
        method: "POST",
        path: "/api/generate",
        body: {
          model: "gemma2:9b",
          prompt: "hello there",
          stream: false,
          options: { num_predict: 64, temperature: 0.2 },
        },
      },
    ]);
    await model.run("plain");
    expect(seen[1].body).toEqual({ model: "gemma2:9b", prompt: "plain", stream: false });
  });

  it("honours opts.model", async () => {
    const { model } = make({ model: "gemma2:9b" });
    await model.run("x", { model: "nomic-embed-text" });
    expect(seen[0].body!.model).toBe("nomic-embed-text");
  });

  it("embed() posts to /api/embed and returns one vector per text", async () => {
    const { model } = make({ model: "nomic-embed-text" });
    const vectors = await model.embed!(["a", "bcd"]);
    expect(CONTRACT_SCHEMAS["local-model"].embed.result.parse(vectors)).toEqual([
      [1, 0, 0.5],
      [3, 1, 0.5],
    ]);
    expect(seen[0]).toEqual({
      method: "POST",
      path: "/api/embed",
      body: { model: "nomic-embed-text", input: ["a", "bcd"] },
    });
  });

  it("surfaces Ollama's own error message", async () => {
    const { model } = make({ model: "llama-missing" });
    await expect(model.run("x")).rejects.toThrow(/answered 404: model 'llama-missing' not found/);
    await expect(model.embed!(["x"])).rejects.toThrow(/404/);
  });

  it("health: true when the model is listed (with or without :latest)", async () => {
    expect(await make({ model: "gemma2:9b" }).model.health_check()).toBe(true);
    expect(await make({ model: "nomic-embed-text" }).model.health_check()).toBe(true);
    models = ["llama3"];
    expect(await make({ model: "llama3:latest" }).model.health_check()).toBe(true);
    expect(seen.every((s) => s.method === "GET" && s.path === "/api/tags")).toBe(true);
  });

  it("health: false (with a hint in the log) when the model is not pulled", async () => {
    const { model, lines } = make({ model: "qwen2.5:7b" });
    expect(await model.health_check()).toBe(false);
    expect(lines.find((l) => l.level === "warn")?.data).toMatchObject({
      model: "qwen2.5:7b",
      fix: "ollama pull qwen2.5:7b",
    });
  });

  it("health: false when the server is down, logging that it cannot reach it", async () => {
    const port = await deadPort();
    const { model, lines } = make({ model: "gemma2:9b", base_url: `http://127.0.0.1:${port}` });
    expect(await model.health_check()).toBe(false);
    expect(lines.some((l) => l.level === "warn" && /cannot reach/.test(String(l.data?.error)))).toBe(true);
    await expect(model.run("x")).rejects.toThrow(/cannot reach/);
  });

  it("health: false when /api/tags does not answer within the remaining budget", async () => {
    tagsHang = true;
    const { model } = make({ model: "gemma2:9b" }, 150);
    expect(await model.health_check()).toBe(false);
  });

  it("health: false when there is no time left, without touching the network", async () => {
    const { model } = make({ model: "gemma2:9b" }, 0);
    expect(await model.health_check()).toBe(false);
    expect(seen).toEqual([]);
  });

  it("bounds requests by timeout_ms, opts.timeout_ms and ctx.signal", async () => {
    const { model } = make({ model: "gemma2:9b", timeout_ms: 150 });
    await expect(model.run("HANG")).rejects.toThrow(/timed out after 150 ms/);

    const perCall = make({ model: "gemma2:9b" }).model;
    await expect(perCall.run("HANG", { timeout_ms: 100 })).rejects.toThrow(/timed out after 100 ms/);

    const cancellable = make({ model: "gemma2:9b" });
    const pending = cancellable.model.run("HANG");
    setTimeout(() => cancellable.abort(new Error("deadline passed")), 50);
    await expect(pending).rejects.toThrow(/deadline passed/);
  });

  it("validates its config", () => {
    expect(() => plugin.config.parse({})).toThrow();
    expect(() => plugin.config.parse({ model: "m", base_url: "ftp://x" })).toThrow(/http/);
    expect(plugin.config.parse({ model: "m" })).toEqual({ model: "m", base_url: "http://127.0.0.1:11434" });
    expect(() => plugin.config.parse({ model: "m", timeout_ms: 0 })).toThrow();
  });

  it("compares model tags the way Ollama lists them", () => {
    expect(sameModel("gemma2", "gemma2:latest")).toBe(true);
    expect(sameModel("gemma2:9b", "gemma2:latest")).toBe(false);
    expect(sameModel("registry:5000/ns/m", "registry:5000/ns/m:latest")).toBe(true);
  });
});
