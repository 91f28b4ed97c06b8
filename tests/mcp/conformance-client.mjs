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
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHost } from "../../dist/index.js";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

// The bounds (connect, boot health check, each call) only turn a hang into a failure. Each scenario
// starts node, a host and a worker beside the suite's own servers; on a loaded machine the 5 s
// default health check or a 25 s call ran out and a scenario recorded as passing failed on time.
const config = { url, connect_timeout_ms: 60_000 };
if (scenario.startsWith("elicitation")) config.elicitation = "accept_defaults";
if (scenario.startsWith("auth/")) {
  // A fresh token store per run: nothing carries over between scenarios.
  const token_store = mkdtempSync(join(tmpdir(), "pb-conformance-oauth-"));
  if (context.private_key_pem) {
    config.oauth = {
      flow: "client_credentials",
      client_id: context.client_id,
      private_key_pem: context.private_key_pem,
      signing_algorithm: context.signing_algorithm,
      token_store,
    };
  } else if (scenario.includes("client-credentials")) {
    config.oauth = {
      flow: "client_credentials",
      client_id: context.client_id,
      client_secret: context.client_secret,
      token_store,
    };
  } else {
    // The suite's authorization server approves without a person: follow the URL headlessly.
    config.oauth = {
      flow: "authorization_code",
      authorize: "fetch",
      token_store,
      ...(context.client_id ? { client_id: context.client_id } : {}),
      ...(context.client_secret ? { client_secret: context.client_secret } : {}),
    };
  }
}

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

const host = await createHost({
  config: {
    plugins: [],
    mcpConnectors: { server: { plugin: "mcp-remote", timeout_ms: 90_000, health_timeout_ms: 60_000, config } },
  },
  logLevel: process.env.PB_CONFORMANCE_LOG ?? "warn",
  env: {},
});
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
