#!/usr/bin/env node
/**
 * The client under test for the official MCP conformance suite (`conformance client --command`):
 * a Patchbay host (createHost from dist/) with one mcp-remote instance pointed at the scenario's
 * server. The suite appends the server URL and sets MCP_CONFORMANCE_SCENARIO (and, for some
 * scenarios, MCP_CONFORMANCE_CONTEXT with credentials).
 *
 * It does what an application does with a connector: list the tools, call each one (arguments
 * from its inputSchema: numbers get 1 and 2, strings "x"), then close. Per scenario it only sets
 * what an operator would set in connectors.json: elicitation "accept_defaults" for the elicitation
 * scenario, oauth client credentials when the suite hands some over.
 */
import { createHost } from "../../dist/index.js";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

const config = { url, connect_timeout_ms: 20_000 };
if (scenario.startsWith("elicitation")) config.elicitation = "accept_defaults";
if (context.client_id) config.oauth = { client_id: context.client_id, ...(context.client_secret ? { client_secret: context.client_secret } : {}) };

function sampleArgs(schema) {
  const args = {};
  const props = schema?.properties ?? {};
  let n = 1;
  for (const [name, p] of Object.entries(props)) {
    if (p?.type === "number" || p?.type === "integer") args[name] = n++;
    else if (p?.type === "string") args[name] = "x";
    else if (p?.type === "boolean") args[name] = true;
  }
  return args;
}

const host = await createHost({ config: { plugins: [], mcpConnectors: { server: { plugin: "mcp-remote", timeout_ms: 25_000, config } } }, logLevel: process.env.PB_CONFORMANCE_LOG ?? "warn", env: {} });
let failed = false;
try {
  const tools = await host.call("mcpConnectors/server", "list_tools");
  for (const tool of tools) {
    try {
      const result = await host.call("mcpConnectors/server", "call", [tool.name, sampleArgs(tool.inputSchema)]);
      process.stdout.write(`${tool.name}: ${JSON.stringify(result).slice(0, 200)}\n`);
    } catch (err) {
      process.stdout.write(`${tool.name}: ${err.code} ${err.message}\n`);
    }
  }
} catch (err) {
  failed = true;
  process.stderr.write(`${err.code ?? "error"}: ${err.message}\n`);
} finally {
  await host.close();
}
process.exit(failed ? 1 : 0);
