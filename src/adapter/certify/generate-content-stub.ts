/**
 * A stub of the generateContent API (`POST …/models/<model>:generateContent` and
 * `…:streamGenerateContent?alt=sse`), so a client built on it runs a whole turn with no network:
 * 127.0.0.1 only, port 0. Each request is answered by the caller's script (function calls to make,
 * or text); every request body is kept for the "injected context reaches the model" check. Side
 * requests (countTokens, embeddings) get a small fixed answer and are not recorded as turns.
 */
import type { ServerResponse } from "node:http";
import { serveStub, type ModelStub, type StubRequest } from "./stub-server.js";

export type GenerateStep =
  | { type: "text"; text: string }
  | { type: "function_call"; name: string; args: Record<string, unknown> };

export type GenerateScript = (req: StubRequest, index: number) => GenerateStep[] | null;

export function startGenerateContentStub(script: GenerateScript): Promise<ModelStub> {
  return serveStub(
    (req, url) => req.method === "POST" && /:(generateContent|streamGenerateContent|countTokens)$/.test(url.pathname),
    (request, index, res: ServerResponse) => {
      if (request.path.includes(":countTokens")) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ totalTokens: 10 }));
        return;
      }
      const steps = script(request, index) ?? [{ type: "text", text: "ok" }];
      const parts = steps.map((s) =>
        s.type === "text" ? { text: s.text } : { functionCall: { name: s.name, args: s.args } },
      );
      const answer = {
        candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
        modelVersion: "stub",
      };
      if (request.path.includes(":streamGenerateContent")) {
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          connection: "keep-alive",
        });
        res.write(`data: ${JSON.stringify(answer)}\n\n`);
        res.end();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    },
  );
}
