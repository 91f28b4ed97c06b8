/**
 * A stub of the Responses API (`POST /v1/responses`, streamed as SSE), so a client built on it
 * runs a whole turn with no network: 127.0.0.1 only, port 0. Each request is answered by the
 * caller's script (a function call or custom tool call to make, or text), and every request body
 * is kept: "injected context reaches the model" is checked on the bytes of the next request.
 * Events sent: response.created, one response.output_item.added/done per item, response.completed.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { serveStub, type ModelStub, type StubRequest } from "./stub-server.js";

/**
 * One output item: assistant text, a JSON function call (`arguments` an object), or a freeform
 * custom tool call (`input` a string, e.g. a patch).
 */
export type ResponsesStep =
  | { type: "text"; text: string }
  | { type: "function_call"; name: string; arguments: Record<string, unknown> }
  | { type: "custom_tool_call"; name: string; input: string };

export type ResponsesScript = (req: StubRequest, index: number) => ResponsesStep[] | null;

export function startResponsesStub(script: ResponsesScript): Promise<ModelStub> {
  let calls = 0;
  return serveStub(
    (req: IncomingMessage, url: URL) => req.method === "POST" && /\/responses$/.test(url.pathname),
    (request, index, res: ServerResponse) => {
      const steps = script(request, index) ?? [{ type: "text", text: "ok" }];
      const model = typeof request.body.model === "string" ? request.body.model : "stub";
      const id = `resp_stub_${index}`;
      const items = steps.map((s, i) => {
        if (s.type === "text")
          return {
            type: "message",
            id: `msg_${index}_${i}`,
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: s.text, annotations: [] }],
          };
        const callId = `call_stub_${++calls}`;
        if (s.type === "function_call")
          return {
            type: "function_call",
            id: `fc_${index}_${i}`,
            call_id: callId,
            name: s.name,
            arguments: JSON.stringify(s.arguments),
            status: "completed",
          };
        return {
          type: "custom_tool_call",
          id: `ctc_${index}_${i}`,
          call_id: callId,
          name: s.name,
          input: s.input,
          status: "completed",
        };
      });
      const base = {
        id,
        object: "response",
        created_at: Math.floor(Date.now() / 1000),
        model,
        status: "in_progress",
        output: [] as unknown[],
      };
      const events: [string, unknown][] = [["response.created", { type: "response.created", response: base }]];
      items.forEach((item, i) => {
        events.push(["response.output_item.added", { type: "response.output_item.added", output_index: i, item }]);
        events.push(["response.output_item.done", { type: "response.output_item.done", output_index: i, item }]);
      });
      const usage = {
        input_tokens: 10,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 15,
      };
      events.push([
        "response.completed",
        { type: "response.completed", response: { ...base, status: "completed", output: items, usage } },
      ]);
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
      });
      for (const [name, data] of events) res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      res.end();
    },
  );
}
