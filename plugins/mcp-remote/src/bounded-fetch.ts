/**
 * The fetch mcp-remote gives the SDK's HTTP transport: the same bound on what a server sends
 * over HTTP as over stdio (one message at most 10 MiB, STDIO_DEFAULT_MAX_BUFFER_SIZE), where the
 * SDK has none. It reads a JSON answer whole (response.json()) and an SSE stream's event until
 * the event ends, so a server could make it keep any amount: the worker's heap limit contains
 * that in a thread, but with "isolation": "host" it is the gateway's own heap.
 *
 * A JSON (or any other non-SSE) body is cut off past the bound; an SSE stream past the bound
 * within one event (the bytes since the last blank line). Either way the body errors with the
 * SDK stdio reader's words, which connection.ts reports as "the server sent a message larger
 * than 10 MiB". Redirects and bodiless answers pass unchanged (the SDK follows redirects itself
 * and reads their status, type and location). Each request has its own abort signal
 * (request-abort.ts), so the connection's does not collect a listener per request.
 */
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { requestAbort, untilDone } from "./request-abort.js";

const LF = 10;
const CR = 13;

export function boundedFetch(maxBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const abort = requestAbort(init?.signal);
    let response: Response;
    try {
      response = await base(url, { ...init, signal: abort.signal });
    } catch (err) {
      abort.done();
      throw err;
    }
    if (!response.body || response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
      abort.done();
      return response;
    }
    const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    const body = untilDone(response.body.pipeThrough(sse ? eventBound(maxBytes) : totalBound(maxBytes)), abort.done);
    const bounded = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // What a Response made here cannot take from its init, as the original answered it.
    Object.defineProperties(bounded, {
      url: { value: response.url },
      redirected: { value: response.redirected },
    });
    return bounded;
  };
}

function tooBig(maxBytes: number): Error {
  return new Error(`ReadBuffer exceeded maximum size of ${maxBytes} bytes`);
}

function totalBound(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) controller.error(tooBig(maxBytes));
      else controller.enqueue(chunk);
    },
  });
}

/** SSE: the bytes of the event being read (since the last blank line) stay within the bound. */
function eventBound(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let inEvent = 0;
  // The last two bytes seen, so a blank line split between two chunks is found.
  let before = [0, 0];
  return new TransformStream({
    transform(chunk, controller) {
      const end = lastEventEnd(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), before);
      inEvent = end === -1 ? inEvent + chunk.byteLength : chunk.byteLength - end;
      if (chunk.byteLength >= 2) before = [chunk[chunk.byteLength - 2], chunk[chunk.byteLength - 1]];
      else if (chunk.byteLength === 1) before = [before[1], chunk[0]];
      if (inEvent > maxBytes) controller.error(tooBig(maxBytes));
      else controller.enqueue(chunk);
    },
  });
}

/**
 * Where in `bytes` the last blank line ends (an event ends at one: "\n\n", "\r\r", "\r\n\r\n"),
 * or -1; `before` is the two bytes that came before `bytes`.
 */
function lastEventEnd(bytes: Buffer, before: number[]): number {
  let end = -1;
  for (const blank of ["\n\n", "\r\r", "\n\r\n"]) {
    const at = bytes.lastIndexOf(blank);
    if (at !== -1) end = Math.max(end, at + blank.length);
  }
  if (end !== -1) return end;
  // A blank line across the seam: its last byte is one of the first two here.
  const [p0, p1] = before;
  const [b0, b1] = [bytes[0], bytes[1]];
  if ((p1 === LF && b0 === LF) || (p1 === CR && b0 === CR) || (p0 === LF && p1 === CR && b0 === LF)) end = 1;
  if (p1 === LF && b0 === CR && b1 === LF) end = 2;
  return end;
}
