/**
 * A tools/call run past the SDK's Protocol dispatch, for a transport that recognises the request
 * first (the HTTP session's fast path, http-session-transport.ts). The same work the stdio lane
 * does (stdio-lane.ts, which measured why): the Protocol's three zod checks of every incoming
 * message (isJSONRPCResultResponse, isJSONRPCErrorResponse, isJSONRPCRequest, each building a full
 * error report when it fails), Server's second parse of CallToolRequestSchema, the handler's four
 * promise steps and a new AbortSignal per request are left out; what decides the answer is kept.
 *
 * It runs the schemas the SDK would run, once each and in its order (readToolCall: the request,
 * checkToolResult: the result, each with a fast path only for values the schema passes unchanged,
 * stdio-shapes.ts), and answers as Server and Protocol do: the result, or the error's code,
 * message and data; no answer to a cancelled call; calls aborted on notifications/cancelled and
 * when the session closes; the handler's notifications through the SDK server's notification().
 * Whatever it does not take (a request either schema refuses, a task, a related task) the SDK does.
 */
import { getEventListeners } from "node:events";
import { safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import {
  CancelledNotificationSchema,
  ErrorCode,
  McpError,
  RELATED_TASK_META_KEY,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { StdioLaneOptions } from "./lane-types.js";
import { checkToolResult, readToolCall } from "./stdio-shapes.js";

/** The gateway's handler and the server's notification(), as the stdio lane takes them. */
export type ToolCallLaneOptions = Required<Pick<StdioLaneOptions, "toolCall" | "notify">>;

type Rec = Record<string, unknown>;

/** Finished calls' controllers kept for reuse (more than one only when calls overlap). */
const MAX_SPARE = 16;

export class ToolCallLane {
  /** Calls the lane runs, by request id (as the Protocol keeps its handlers' controllers). */
  private readonly running = new Map<RequestId, AbortController>();
  /** Controllers of finished calls, never aborted and with no listener left (see release). */
  private readonly spare: AbortController[] = [];
  private closed = false;

  constructor(
    private readonly opts: ToolCallLaneOptions,
    /** Sends an answer as the Protocol would (through the transport's send). */
    private readonly send: (message: JSONRPCMessage) => Promise<void>,
    private readonly onerror: (error: Error) => void,
  ) {}

  /** Runs a tools/call the SDK would hand its handler unchanged; false: the SDK must take it. */
  run(value: Rec): boolean {
    if (this.closed) return false;
    const request = readToolCall(value);
    if (!request) return false;
    const { id, params } = request;
    if (params.task !== undefined || params._meta?.[RELATED_TASK_META_KEY] !== undefined) return false;
    const controller = this.spare.pop() ?? new AbortController();
    this.running.set(id, controller);
    const { signal } = controller;
    const { toolCall, notify } = this.opts;
    let answer: ReturnType<typeof toolCall>;
    try {
      answer = toolCall(params, {
        signal,
        sendNotification: async (notification) => {
          if (!signal.aborted) await notify(notification, id);
        },
      });
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer
      .then(
        (result) => {
          if (signal.aborted) return; // a cancelled call is not answered
          const checked = checkToolResult(result);
          if (checked.success) return this.send({ result: checked.data, jsonrpc: "2.0", id } as JSONRPCMessage);
          const why = checked.error instanceof Error ? checked.error.message : String(checked.error);
          return this.send(
            errorResponse(id, new McpError(ErrorCode.InvalidParams, `Invalid tools/call result: ${why}`) as never),
          );
        },
        (error: Rec) => {
          if (signal.aborted) return;
          return this.send(errorResponse(id, error));
        },
      )
      .catch((err) => this.onerror(new Error(`Failed to send response: ${err}`)))
      .finally(() => {
        if (this.running.get(id) === controller) this.running.delete(id);
        this.release(controller);
      });
    return true;
  }

  /**
   * A message the session's server gets: a notifications/cancelled for a call the lane runs aborts
   * it, read as the Protocol reads it (a requestId of 0 cancels nothing). The server still gets it.
   */
  see(message: JSONRPCMessage): void {
    if (this.running.size === 0 || (message as Rec).method !== "notifications/cancelled" || "id" in message) return;
    const parsed = safeParse(CancelledNotificationSchema, message);
    if (!parsed.success || !parsed.data.params.requestId) return;
    this.running.get(parsed.data.params.requestId)?.abort(parsed.data.params.reason);
  }

  /** The session closed: its calls are withdrawn, as the Protocol aborts its handlers on close. */
  close(): void {
    this.closed = true;
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
    this.spare.length = 0;
  }

  /**
   * A finished call's controller is kept for the next call when nothing of this call can hear it
   * again: never aborted, and no listener left on its signal (the host's call removes its own when
   * the call settles; one that stays, such as a wait for the boot, keeps the controller out).
   * Creating an AbortSignal costs Node 20 about 9 µs, nearly all of a lane's own time on a call.
   */
  private release(controller: AbortController): void {
    if (this.spare.length >= MAX_SPARE || this.closed || controller.signal.aborted) return;
    if (getEventListeners(controller.signal, "abort").length > 0) return;
    this.spare.push(controller);
  }
}

/** A failed call as the Protocol answers it: the error's integer code (else -32603), its message and data. */
function errorResponse(id: RequestId, error: Rec): JSONRPCMessage {
  const code = Number.isSafeInteger(error.code) ? (error.code as number) : ErrorCode.InternalError;
  const message = (error.message as string | undefined) ?? "Internal error";
  return { jsonrpc: "2.0", id, error: { code, message, ...(error.data !== undefined && { data: error.data }) } };
}
