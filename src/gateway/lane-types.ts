/**
 * What the stdio lane (stdio-lane.ts) and the tools/call lane it runs (tool-call-lane.ts) both name:
 * the gateway's handler, what it gets besides the params, and the lane's options. Apart so neither
 * lane imports the other's types (the gateway's callTool names ToolCallExtra too).
 */
import type {
  CallToolRequest,
  CallToolResult,
  RequestId,
  ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";

/** What a tools/call handler gets besides the params (the part of the SDK's RequestHandlerExtra the gateway uses). */
export interface ToolCallExtra {
  signal: AbortSignal;
  sendNotification(notification: ServerNotification): Promise<void>;
}

export type ToolCallHandler = (params: CallToolRequest["params"], extra: ToolCallExtra) => Promise<CallToolResult>;

export interface StdioLaneOptions {
  /** A line longer than this (bytes) ends the connection, as the SDK's maxBufferSize does. */
  maxLineBytes: number;
  /** Told first when such a line ends the connection (the SDK's transport tells only onerror, which no one shows). */
  onOverflow?: () => void;
  /** tools/call, as the SDK server's handler runs it; absent: every message goes to the SDK. */
  toolCall?: ToolCallHandler;
  /** How the handler's notifications are sent: the SDK server's notification(), tied to the request. */
  notify?: (notification: ServerNotification, requestId: RequestId) => Promise<void>;
}
