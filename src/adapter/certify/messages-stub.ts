/**
 * A stub of the Anthropic Messages API that the project owns, so a real AI client can run a whole
 * turn with no network: 127.0.0.1 only, port 0, `HEAD /` answered 200 and `POST /v1/messages`
 * streamed as SSE (message_start, content_block_start/delta/stop per block, message_delta,
 * message_stop). Each request is answered by the script the caller gives (a tool call to make,
 * or text), and every request body is kept so a test can see what the client sent next — this
 * is how "injected context reaches the model" is checked: by the bytes of the next request.
 */
import type { ServerResponse } from "node:http";
import { type ModelStub, type StubRequest, serveStub } from "./stub-server.js";

export type { StubRequest } from "./stub-server.js";

export type StubBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown> };

/** What to answer a request with; `null` = a plain "ok" text. */
export type StubScript = (req: StubRequest, index: number) => StubBlock[] | null;

export type MessagesStub = ModelStub;

export async function startMessagesStub(script: StubScript): Promise<MessagesStub> {
  let toolIds = 0;
  return serveStub(
    (req, url) => req.method === "POST" && url.pathname === "/v1/messages",
    (request, index, res) => answer(request, index, res),
    (message) => ({ type: "error", error: { type: "not_found_error", message } }),
  );
  function answer(request: StubRequest, index: number, res: ServerResponse): void {
    const { body } = request;
    const blocks = script(request, index) ?? [{ type: "text", text: "ok" }];
    const model = typeof body.model === "string" ? body.model : "stub";
    const hasTool = blocks.some((b) => b.type === "tool_use");
    const events: [string, unknown][] = [
      [
        "message_start",
        {
          type: "message_start",
          message: {
            id: `msg_stub_${index}`,
            type: "message",
            role: "assistant",
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        },
      ],
    ];
    blocks.forEach((block, i) => {
      if (block.type === "text") {
        events.push([
          "content_block_start",
          { type: "content_block_start", index: i, content_block: { type: "text", text: "" } },
        ]);
        events.push([
          "content_block_delta",
          { type: "content_block_delta", index: i, delta: { type: "text_delta", text: block.text } },
        ]);
      } else {
        const id = `toolu_stub_${++toolIds}`;
        events.push([
          "content_block_start",
          {
            type: "content_block_start",
            index: i,
            content_block: { type: "tool_use", id, name: block.name, input: {} },
          },
        ]);
        events.push([
          "content_block_delta",
          {
            type: "content_block_delta",
            index: i,
            delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
          },
        ]);
      }
      events.push(["content_block_stop", { type: "content_block_stop", index: i }]);
    });
    events.push([
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: hasTool ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ]);
    events.push(["message_stop", { type: "message_stop" }]);
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "request-id": `req_stub_${index}`,
    });
    for (const [name, data] of events) res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    res.end();
  }
}
