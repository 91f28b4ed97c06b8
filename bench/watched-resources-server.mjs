#!/usr/bin/env node
/**
 * A stdio MCP server whose resources are the files of one folder (argv[2], or WATCHED_DIR):
 * `watched://r/<name>` for each file, read as its text, with subscriptions. Several copies (one
 * per gateway replica) watch the same folder, so a change is seen by whichever copy holds the
 * subscription. A subscribed file is polled every 100 ms, by mtime and content (a write within
 * one mtime tick still differs in content; fs.watch is not reliable across filesystems), and a
 * change sends `notifications/resources/updated` for its URI.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const DIR = path.resolve(process.argv[2] ?? process.env.WATCHED_DIR ?? ".");
const PREFIX = "watched://r/";
const POLL_MS = 100;

/** The file a URI names, or null: one plain name inside the folder, never a path out of it. */
function fileOf(uri) {
  if (!uri.startsWith(PREFIX)) return null;
  const name = decodeURIComponent(uri.slice(PREFIX.length));
  if (!name || name.includes("/") || name.includes("\\") || name === "." || name === "..") return null;
  return path.join(DIR, name);
}

/** What a change is judged by: mtime and content together; null while the file is missing. */
function snapshot(file) {
  try {
    return `${statSync(file).mtimeMs}:${readFileSync(file, "utf8")}`;
  } catch {
    return null;
  }
}

const server = new Server(
  { name: "watched-resources", version: "1.0.0" },
  // One tool besides the resources, so the cluster's tools/call path is the one a client uses.
  { capabilities: { resources: { subscribe: true }, tools: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "echo",
      description: "Returns its text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async ({ params }) => ({
  content: [{ type: "text", text: String(params.arguments?.text ?? "") }],
}));

server.setRequestHandler(ListResourcesRequestSchema, async () => ({
  resources: readdirSync(DIR, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => ({ uri: PREFIX + encodeURIComponent(e.name), name: e.name, mimeType: "text/plain" })),
}));

server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
  const file = fileOf(params.uri);
  let text;
  try {
    text = file && readFileSync(file, "utf8");
  } catch {}
  if (typeof text !== "string") throw new McpError(-32002, `Resource not found: ${params.uri}`);
  return { contents: [{ uri: params.uri, mimeType: "text/plain", text }] };
});

/** Subscribed URI -> its last snapshot. */
const subscribed = new Map();

server.setRequestHandler(SubscribeRequestSchema, async ({ params }) => {
  const file = fileOf(params.uri);
  if (!file) throw new McpError(-32602, `Not a watched URI: ${params.uri}`);
  if (!subscribed.has(params.uri)) subscribed.set(params.uri, snapshot(file));
  return {};
});

server.setRequestHandler(UnsubscribeRequestSchema, async ({ params }) => {
  subscribed.delete(params.uri);
  return {};
});

setInterval(() => {
  for (const [uri, last] of subscribed) {
    const now = snapshot(fileOf(uri));
    if (now === last) continue;
    subscribed.set(uri, now);
    server.sendResourceUpdated({ uri }).catch(() => {});
  }
}, POLL_MS).unref();

const transport = new StdioServerTransport();
// The process lives as long as its client: stdin closing (the replica gone) ends it.
transport.onclose = () => process.exit(0);
process.stdin.on("end", () => process.exit(0));
await server.connect(transport);
