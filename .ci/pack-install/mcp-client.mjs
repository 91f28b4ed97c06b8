// An MCP client (the SDK's own) driving `patchbay-host serve --mcp` over stdio: list the tools,
// call one, check the answer.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const transport = new StdioClientTransport({
  command: process.execPath,
  args: ["node_modules/patchbay-host/bin/patchbay.mjs", "serve", "--mcp"],
  stderr: "inherit",
});
const client = new Client({ name: "pack-install", version: "1.0.0" });
await client.connect(transport);
try {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  const tool = names.find((n) => n.endsWith("__echo"));
  if (!tool) throw new Error(`no echo tool among ${names.join(", ")}`);
  const result = await client.callTool({ name: tool, arguments: { text: "from-outside" } });
  const text = JSON.stringify(result);
  if (result.isError || !text.includes("from-outside")) throw new Error(`${tool} answered ${text}`);
  console.log(`mcp ok: ${names.length} tools; ${tool} answered ${text.slice(0, 120)}`);
} finally {
  await client.close();
}
