/**
 * mcp-remote: one MCP server behind the `mcp` contract, through the official SDK client.
 * `url` speaks Streamable HTTP; `command` starts the server as a child process on stdio.
 *
 * This entry imports no SDK code on purpose: create() starts a stdio server first, then loads
 * the connector (and with it the SDK, ~140 ms in a worker), so the server boots on the other
 * core meanwhile instead of after it (the longest stretch of a boot with a stdio server).
 */
import { definePlugin } from "patchbay/plugin";
import type { McpConnector } from "patchbay/plugin";
import { startServer } from "./child-server.js";
import { config } from "./config.js";

export default definePlugin({
  kind: "mcp",
  config,
  // Each method reads its call (ctx.currentCall()) before its first await: the runtime need not
  // track calls across awaits, which with "isolation": "host" would slow every promise of the host.
  callContext: "sync",
  async create(cfg, ctx): Promise<McpConnector> {
    const early = cfg.command
      ? startServer({ command: cfg.command, args: cfg.args, cwd: cfg.cwd, env: cfg.env })
      : null;
    try {
      const [{ createConnector }, http] = await Promise.all([
        import("./connector.js"),
        cfg.url ? import("./http-link.js") : null,
      ]);
      return createConnector(cfg, ctx, early, http);
    } catch (err) {
      early?.proc.kill("SIGKILL"); // create() failed: nothing will ever close this server
      throw err;
    }
  },
});
