/**
 * The mcp kit: list_tools answers {name, description?, inputSchema?} with unique names; an
 * allowed call succeeds and keeps MCP's result shape; allowed_tools filters list_tools and
 * denies other tools before they reach the plugin; a tool error arrives as PB_ERR_TOOL_ERROR
 * carrying the tool's own text (MCP's isError semantics), never as a crash. The optional methods
 * (resources, prompts, server_info), when declared, answer MCP's shapes and agree with each other:
 * every listed resource reads back under its own uri, every listed prompt without required
 * arguments can be got.
 */
import { NARROW_INSTANCE } from "../boot.js";
import { attempt, ensure, preview, refused } from "../assert.js";
import type { Claim, KitContext, ToolCall } from "../types.js";
import type {
  GetPromptResult,
  PromptDescriptor,
  ReadResourceResult,
  ResourceDescriptor,
  ToolDescriptor,
} from "../../contract/types.js";

const needsCall = (kit: KitContext) => (kit.opts.mcp?.call ? null : "no mcp.call option (a tool call that succeeds)");
const call = (kit: KitContext): ToolCall => kit.opts.mcp!.call;
const narrowId = (kit: KitContext) => `${kit.id.split("/")[0]}/${NARROW_INSTANCE}`;
const declares = (method: string) => (kit: KitContext) =>
  kit.manifest.capabilities.includes(method) ? null : `the plugin does not declare ${method}`;
/** How many listed resources / prompts a claim reads back (a server may list thousands). */
const SAMPLE = 5;

export const mcpClaims: Claim[] = [
  {
    name: "list_tools answers {name, description?, inputSchema?} with unique names",
    async run(kit) {
      const tools = await attempt("list_tools", () => kit.call<ToolDescriptor[]>("list_tools"));
      ensure(tools.length > 0, "list_tools answered no tools");
      for (const t of tools)
        ensure(
          typeof t.name === "string" && t.name.length > 0,
          `list_tools answered a tool without a name: ${preview(t)}`,
        );
      const twice = tools.map((t) => t.name).filter((n, i, all) => all.indexOf(n) !== i);
      ensure(twice.length === 0, `list_tools names ${twice.map((n) => `"${n}"`).join(", ")} twice`);
      const c = kit.opts.mcp?.call;
      if (c)
        ensure(
          tools.some((t) => t.name === c.tool),
          `list_tools does not list the call tool "${c.tool}" (tools: ${tools.map((t) => t.name).join(", ")})`,
        );
    },
  },
  {
    name: "an allowed call succeeds and answers MCP's result shape",
    skip: needsCall,
    async run(kit) {
      const result = await attempt(`call "${call(kit).tool}"`, () =>
        kit.call<{ content?: unknown; isError?: boolean }>("call", call(kit).tool, call(kit).args),
      );
      ensure(result && typeof result === "object", `call answered ${preview(result)}`);
      ensure(Array.isArray(result.content), `call answered no content array: ${preview(result)}`);
    },
  },
  {
    name: "allowed_tools filters list_tools and denies other tools before they reach the plugin",
    skip: needsCall,
    async run(kit) {
      const id = narrowId(kit);
      const tools = await attempt(
        "list_tools (narrow)",
        () => kit.host.call(id, "list_tools") as Promise<ToolDescriptor[]>,
      );
      ensure(
        tools.length === 1 && tools[0].name === call(kit).tool,
        `with allowed_tools ["${call(kit).tool}"], list_tools answered ${tools.map((t) => t.name).join(", ") || "nothing"}`,
      );
      await attempt(`call "${call(kit).tool}" (narrow)`, () =>
        kit.host.call(id, "call", [call(kit).tool, call(kit).args]),
      );
      await refused(
        kit.host.call(id, "call", ["pb-kit-not-allowed", {}]),
        "PB_ERR_TOOL_DENIED",
        "a tool outside allowed_tools",
      );
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
  {
    name: "list_resources lists resources that read back under their own uri",
    skip: (kit) => declares("list_resources")(kit) ?? declares("read_resource")(kit),
    async run(kit) {
      const resources = await attempt("list_resources", () => kit.call<ResourceDescriptor[]>("list_resources"));
      for (const r of resources.slice(0, SAMPLE)) {
        const read = await attempt(`read_resource "${r.uri}"`, () =>
          kit.call<ReadResourceResult>("read_resource", r.uri),
        );
        ensure(read.contents.length > 0, `read_resource "${r.uri}" answered no contents`);
        ensure(
          read.contents.every((c) => typeof c.uri === "string"),
          `read_resource "${r.uri}" answered a content without a uri: ${preview(read.contents)}`,
        );
      }
    },
  },
  {
    name: "list_prompts lists prompts that get_prompt answers",
    skip: (kit) => declares("list_prompts")(kit) ?? declares("get_prompt")(kit),
    async run(kit) {
      const prompts = await attempt("list_prompts", () => kit.call<PromptDescriptor[]>("list_prompts"));
      const twice = prompts.map((p) => p.name).filter((n, i, all) => all.indexOf(n) !== i);
      ensure(twice.length === 0, `list_prompts names ${twice.map((n) => `"${n}"`).join(", ")} twice`);
      for (const p of prompts.filter((x) => !(x.arguments ?? []).some((a) => a.required)).slice(0, SAMPLE)) {
        const got = await attempt(`get_prompt "${p.name}"`, () => kit.call<GetPromptResult>("get_prompt", p.name));
        ensure(got.messages.length > 0, `get_prompt "${p.name}" answered no messages`);
      }
    },
  },
  {
    name: "server_info answers the server's name, version and instructions as strings",
    skip: declares("server_info"),
    async run(kit) {
      const info = await attempt("server_info", () => kit.call<Record<string, unknown>>("server_info"));
      for (const k of ["name", "version", "title", "instructions"]) {
        ensure(
          info[k] === undefined || typeof info[k] === "string",
          `server_info.${k} is not a string: ${preview(info[k])}`,
        );
      }
    },
  },
];
