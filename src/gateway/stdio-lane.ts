/**
 * `serve --mcp`'s stdio transport: the SDK's StdioServerTransport (same line framing, same message
 * check, same errors) with a lane that takes tools/call past the SDK's Protocol dispatch.
 *
 * Why: on every incoming message the Protocol asks isJSONRPCResultResponse and
 * isJSONRPCErrorResponse before isJSONRPCRequest, and zod builds a full error report for each
 * failing check (~18 µs of the ~20 µs the three take on a request, on the shared 2-core VM); the
 * Server then parses CallToolRequestSchema twice (Protocol's wrapper and Server's tools/call
 * wrapper), wraps the handler in four promise steps, and the Protocol creates an AbortSignal
 * per request (~9 µs on Node 20). Measured in one process, interleaved, with a handler that
 * answers at once: the SDK's server over its stdio transport took ~28 µs of CPU per tools/call
 * above a bare echo over the same streams; this lane takes ~1 µs.
 *
 * The lane runs the same schemas once each, in the order the SDK would: JSONRPCRequestSchema
 * (what JSONRPCMessageSchema's union picks for a request), CallToolRequestSchema on its output,
 * and CallToolResultSchema on the handler's result (each with a fast path for values it passes
 * unchanged, stdio-shapes.ts), reuses a finished call's AbortController, and answers as Server and Protocol do (result
 * or error shape, no answer to a cancelled call, aborts on notifications/cancelled and on close,
 * progress through Protocol.notification). Anything it does not take unchanged goes to the SDK:
 * a request that fails either request schema (the SDK answers its own error), a task-augmented
 * call or one related to a task, every other method. tests/gateway/stdio-lane.test.ts holds the
 * lane and the SDK's path to the same answers. The running of a call is tool-call-lane.ts, which
 * the HTTP session's fast path shares.
 *
 * The framing keeps the unfinished line as a list of chunks: the SDK's ReadBuffer concatenates
 * the whole buffer on every chunk, quadratic in a long line (a 10 MB request arrives in ~160 chunks).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdioLaneOptions } from "./lane-types.js";
import { ToolCallLane } from "./tool-call-lane.js";

type Rec = Record<string, unknown>;

export class StdioLaneTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly pending: Buffer[] = [];
  private pendingBytes = 0;
  private started = false;
  private closed = false;
  /** Runs the tools/calls the lane takes (tool-call-lane.ts, shared with the HTTP session's fast path). */
  private readonly calls: ToolCallLane | null;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly opts: StdioLaneOptions,
  ) {
    this.calls = opts.toolCall
      ? new ToolCallLane(
          { toolCall: opts.toolCall, notify: opts.notify ?? (async () => undefined) },
          (message) => this.send(message),
          (error) => this.onerror?.(error),
        )
      : null;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("StdioLaneTransport already started");
    this.started = true;
    this.input.on("data", this.ondata);
    this.input.on("error", this.oninputerror);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.input.off("data", this.ondata);
    this.input.off("error", this.oninputerror);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.pending.length = 0;
    this.pendingBytes = 0;
    // The client is gone: its calls are withdrawn, as the Protocol aborts its handlers on close.
    this.closed = true;
    this.calls?.close();
    this.onclose?.();
  }

  private readonly oninputerror = (error: Error) => this.onerror?.(error);

  private readonly ondata = (chunk: Buffer | string) => {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let from = 0;
    for (let nl = buf.indexOf(10); ; nl = buf.indexOf(10, from)) {
      const end = nl < 0 ? buf.length : nl;
      if (this.pendingBytes + end - from > this.opts.maxLineBytes) return this.overflow();
      if (nl < 0) break;
      let line: string;
      if (this.pending.length === 0) line = buf.toString("utf8", from, nl);
      else {
        this.pending.push(buf.subarray(from, nl));
        line = Buffer.concat(this.pending).toString("utf8");
        this.pending.length = 0;
        this.pendingBytes = 0;
      }
      from = nl + 1;
      this.line(line.endsWith("\r") ? line.slice(0, -1) : line);
      if (this.closed) return; // as the SDK's transport, which clears its buffer on close
    }
    if (from < buf.length) {
      this.pending.push(from === 0 ? buf : buf.subarray(from));
      this.pendingBytes += buf.length - from;
    }
  };

  /** A line over the limit: the connection ends, as the SDK's transport ends it. */
  private overflow(): void {
    this.pending.length = 0;
    this.pendingBytes = 0;
    this.opts.onOverflow?.();
    this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${this.opts.maxLineBytes} bytes`));
    void this.close().catch(() => undefined);
  }

  /** One line, as the SDK's transport and Protocol would take it, or through the lane. */
  private line(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return this.onerror?.(err as Error);
    }
    if (this.calls && isRecord(value) && value.method === "tools/call" && this.calls.run(value)) return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(value);
    } catch (err) {
      return this.onerror?.(err as Error);
    }
    // A notifications/cancelled for a call the lane runs aborts it; the Protocol still gets it, for its own calls.
    this.calls?.see(message);
    this.onmessage?.(message);
  }
}

function isRecord(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
