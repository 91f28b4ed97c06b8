#!/usr/bin/env node
/**
 * A small MCP server that ships with Patchbay, for demos and tests of the mcp-remote plugin
 * (its tools: servers/demo-server.mjs).
 *
 *   node servers/demo-mcp.mjs            serve over stdio
 *
 * It runs the copy `npm run build` bundles into dist/servers/ (scripts/bundle-cli.mjs) when there
 * is one: one file instead of the ~300 modules of the MCP SDK and zod, so it answers `initialize`
 * in about half the time, and it is on the critical path of `npm start` and of every boot of
 * the default connectors.json. Without a build it runs the source.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const bundled = new URL("../dist/servers/demo-mcp.mjs", import.meta.url);
if (existsSync(fileURLToPath(bundled))) await import(bundled.href);
else await (await import("./demo-server.mjs")).serveStdio();
