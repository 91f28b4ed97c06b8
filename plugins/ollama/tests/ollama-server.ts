/**
 * A small HTTP server on 127.0.0.1 that speaks the parts of the Ollama API the plugin uses:
 * GET /api/tags (the pulled models), POST /api/generate (stream: false) and POST /api/embed.
 * Answers are deterministic (embeddings are 8 numbers derived from each text) so tests can
 * assert on them; an unknown model is a 404 with Ollama's error shape.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeOllama {
  url: string;
  /** Every request body seen, newest last. */
  requests: { path: string; body: Record<string, unknown> | null }[];
  close(): Promise<void>;
}

export const EMBED_DIM = 8;

async function body(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as Record<string, unknown>) : null;
}

function vector(text: string): number[] {
  const digest = createHash("sha256").update(text).digest();
  return Array.from({ length: EMBED_DIM }, (_, i) => digest[i] / 255);
}

export async function startFakeOllama(models: string[]): Promise<FakeOllama> {
  const requests: FakeOllama["requests"] = [];
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, data: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(data));
    };
    try {
      const data = req.method === "POST" ? await body(req) : null;
      requests.push({ path: req.url ?? "", body: data });
      if (req.method === "GET" && req.url === "/api/tags") {
        return send(200, { models: models.map((name) => ({ name, model: name, size: 1, digest: "0", details: {} })) });
      }
      const model = String(data?.model ?? "");
      if (req.method === "POST" && (req.url === "/api/generate" || req.url === "/api/embed")) {
        if (!models.includes(model) && !models.includes(`${model}:latest`))
          return send(404, { error: `model "${model}" not found, try pulling it first` });
        if (req.url === "/api/generate") {
          return send(200, {
            model,
            created_at: new Date().toISOString(),
            response: `hello from ${model}: ${String(data?.prompt)}`,
            done: true,
          });
        }
        const input = Array.isArray(data?.input) ? (data.input as string[]) : [String(data?.input)];
        return send(200, { model, embeddings: input.map(vector) });
      }
      send(404, { error: "not found" });
    } catch (err) {
      send(400, { error: (err as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
