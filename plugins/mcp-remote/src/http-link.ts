/**
 * What mcp-remote needs only for a `url` server: the SDK's Streamable HTTP transport and OAuth,
 * the bounded fetch, the OAuth providers. index.ts imports it only when `url` is set: for a stdio
 * server these modules were a third of what its thread compiled (~120 KB of the SDK's bundle,
 * OAuth's schemas, node:http and the web streams), CPU taken while the server itself starts.
 */
export { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
export { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { boundedFetch } from "./bounded-fetch.js";
export { AuthCodeProvider, makeAuthProvider } from "./oauth.js";

export type HttpLink = typeof import("./http-link.js");
