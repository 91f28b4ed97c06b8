/**
 * The mcp kit: list_tools answers {name, description?, inputSchema?} with unique names; an
 * allowed call succeeds and keeps MCP's result shape; allowed_tools filters list_tools and
 * denies other tools before they reach the plugin; a tool error arrives as PB_ERR_TOOL_ERROR
 * carrying the tool's own text (MCP's isError semantics), never as a crash.
 */
import { NARROW_INSTANCE } from "../boot.js";
import { attempt, ensure, preview, refused } from "../assert.js";
import type { Claim, KitContext, ToolCall } from "../types.js";
import type { ToolDescriptor } from "../../contract/types.js";

const needsCall = (kit: KitContext) => (kit.opts.mcp?.call ? null : "no mcp.call option (a tool call that succeeds)");
const call = (kit: KitContext): ToolCall => kit.opts.mcp!.call;
const narrowId = (kit: KitContext) => `${kit.id.split("/")[0]}/${NARROW_INSTANCE}`;

export const mcpClaims: Claim[] = [
  {
    name: "list_tools answers {name, description?, inputSchema?} with unique names",
    async run(kit) {
      const tools = await attempt("list_tools", () => kit.call<ToolDescriptor[]>("list_tools"));
      ensure(tools.length > 0, "list_tools answered no tools");
      for (const t of tools) ensure(typeof t.name === "string" && t.name.length > 0, `list_tools answered a tool without a name: ${preview(t)}`);
      const twice = tools.map((t) => t.name).filter((n, i, all) => all.indexOf(n) !== i);
      ensure(twice.length === 0, `list_tools names ${twice.map((n) => `"${n}"`).join(", ")} twice`);
      const c = kit.opts.mcp?.call;
      if (c) ensure(tools.some((t) => t.name === c.tool), `list_tools does not list the call tool "${c.tool}" (tools: ${tools.map((t) => t.name).join(", ")})`);
    },
  },
  {
    name: "an allowed call succeeds and answers MCP's result shape",
    skip: needsCall,
    async run(kit) {
      const result = await attempt(`call "${call(kit).tool}"`, () => kit.call<{ content?: unknown; isError?: boolean }>("call", call(kit).tool, call(kit).args));
      ensure(result && typeof result === "object", `call answered ${preview(result)}`);
      ensure(Array.isArray(result.content), `call answered no content array: ${preview(result)}`);
    },
  },
  {
    name: "allowed_tools filters list_tools and denies other tools before they reach the plugin",
    skip: needsCall,
    async run(kit) {
      const id = narrowId(kit);
      const tools = await attempt("list_tools (narrow)", () => kit.host.call(id, "list_tools") as Promise<ToolDescriptor[]>);
      ensure(tools.length === 1 && tools[0].name === call(kit).tool, `with allowed_tools ["${call(kit).tool}"], list_tools answered ${tools.map((t) => t.name).join(", ") || "nothing"}`);
      await attempt(`call "${call(kit).tool}" (narrow)`, () => kit.host.call(id, "call", [call(kit).tool, call(kit).args]));
      await refused(kit.host.call(id, "call", ["pb-kit-not-allowed", {}]), "PB_ERR_TOOL_DENIED", "a tool outside allowed_tools");
    },
  },
  {
    name: "a tool error arrives as PB_ERR_TOOL_ERROR carrying the tool's text",
    skip: (kit) => (kit.opts.mcp?.errorCall ? null : "no mcp.errorCall option (a call whose tool reports isError)"),
    async run(kit) {
      const { tool, args } = kit.opts.mcp!.errorCall!;
      const err = await refused(kit.call("call", tool, args), "PB_ERR_TOOL_ERROR", `call "${tool}"`);
      ensure(!/\(no message\)$/.test(err.message), `the error carries no text from the tool: ${err.message}`);
      // The instance survives a tool error.
      ensure((await kit.call("health_check")) === true, "health_check is not true after a tool error");
    },
  },
];
