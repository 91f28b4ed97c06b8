/**
 * Resources and prompts through the gateway, for mcp connectors whose plugin offers the optional
 * contract methods list_resources / read_resource / list_resource_templates / list_prompts /
 * get_prompt. The gateway offers the `resources` and
 * `prompts` capabilities only when an exposed, live instance has them, so a client never sees
 * a capability nothing can answer.
 *
 * Resource URIs pass through unchanged (they are global names, and content may refer to them);
 * the gateway remembers which instance listed each URI and sends reads there (the first instance
 * listed wins a URI two list). Prompt names are namespaced like tools: <instance>__<prompt>.
 */
import { ErrorCode, McpError, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { toWire } from "../errors.js";
import type { Host } from "../host/api.js";
import type { InstanceCapabilities } from "../registry/capabilities.js";
import { nameTools, type ToolRoute } from "./names.js";

export const RESOURCE_METHODS = ["list_resources", "read_resource"] as const;
export const PROMPT_METHODS = ["list_prompts", "get_prompt"] as const;
export const SUBSCRIBE_METHODS = ["subscribe_resource", "unsubscribe_resource"] as const;

export interface Passthrough {
  resources: InstanceCapabilities[];
  templates: InstanceCapabilities[];
  /** Those of `resources` that also take subscriptions (subscriptions.ts). */
  subscribable: InstanceCapabilities[];
  prompts: InstanceCapabilities[];
}

/** The live, exposed mcp instances that can answer resources and prompts. */
export function passthroughOf(caps: InstanceCapabilities[], exposedIds: Set<string>): Passthrough {
  const live = caps.filter((c) => c.kind === "mcp" && exposedIds.has(c.id));
  const has = (c: InstanceCapabilities, ms: readonly string[]) => ms.every((m) => c.methods?.includes(m));
  return {
    resources: live.filter((c) => has(c, RESOURCE_METHODS)),
    templates: live.filter((c) => has(c, ["list_resource_templates"])),
    subscribable: live.filter((c) => has(c, RESOURCE_METHODS) && has(c, SUBSCRIBE_METHODS)),
    prompts: live.filter((c) => has(c, PROMPT_METHODS)),
  };
}

/** A list result may come as the MCP shape ({resources: [...]}) or as the bare array. */
function items(result: unknown, key: string): Record<string, unknown>[] {
  if (Array.isArray(result)) return result as Record<string, unknown>[];
  const list = (result as Record<string, unknown> | null)?.[key];
  return Array.isArray(list) ? (list as Record<string, unknown>[]) : [];
}

/** A Patchbay failure as a JSON-RPC error: the code first in the text, code and hint in data. */
export function protocolError(err: unknown, rpcCode?: number): McpError {
  const w = toWire(err);
  // A feature the upstream lacks reads to a client like a method it lacks.
  const code = rpcCode ?? (w.code === "PB_ERR_UNSUPPORTED" ? ErrorCode.MethodNotFound : ErrorCode.InternalError);
  return new McpError(code, `[${w.code}] ${w.message}`, { code: w.code, hint: w.hint });
}

/**
 * Registers the resources and prompts handlers on one client's server; returns which instance
 * listed a URI for this client (the first that did), for the subscription handlers.
 */
export function registerPassthrough(server: Server, host: Host, current: () => Passthrough): (uri: string) => string | undefined {
  const uriOwner = new Map<string, string>();
  // The SDK refuses a handler for a capability the server does not announce (a connector with
  // resources but no prompts would otherwise fail every client's connection).
  const now = current();
  if (now.resources.length > 0) registerResources(server, host, current, uriOwner);
  if (now.prompts.length > 0) registerPrompts(server, host, current);
  return (uri) => uriOwner.get(uri);
}

function registerResources(server: Server, host: Host, current: () => Passthrough, uriOwner: Map<string, string>): void {

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const all: Record<string, unknown>[] = [];
    for (const c of current().resources) {
      try {
        for (const r of items(await host.call(c.id, "list_resources", []), "resources")) {
          if (typeof r.uri !== "string" || uriOwner.get(r.uri) && uriOwner.get(r.uri) !== c.id) continue;
          uriOwner.set(r.uri, c.id);
          all.push(r);
        }
      } catch {
        /* One instance's failure leaves the others' resources listed. */
      }
    }
    return { resources: all } as never;
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    // A URI learned elsewhere (a tool result's resource link) goes to the only instance that could own it.
    const only = current().resources.length === 1 ? current().resources[0].id : undefined;
    const owner = uriOwner.get(req.params.uri) ?? only;
    if (!owner) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${req.params.uri.slice(0, 200)}: list the resources first.`);
    try {
      return (await host.call(owner, "read_resource", [req.params.uri])) as never;
    } catch (err) {
      throw protocolError(err);
    }
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
    const all: Record<string, unknown>[] = [];
    for (const c of current().templates) {
      try {
        all.push(...items(await host.call(c.id, "list_resource_templates", []), "resourceTemplates"));
      } catch {
        /* as above */
      }
    }
    return { resourceTemplates: all } as never;
  });
}

function registerPrompts(server: Server, host: Host, current: () => Passthrough): void {
  let promptRoutes = new Map<string, ToolRoute>();
  server.setRequestHandler(ListPromptsRequestSchema, async () => {
    const found: { route: ToolRoute; prompt: Record<string, unknown> }[] = [];
    for (const c of current().prompts) {
      try {
        for (const p of items(await host.call(c.id, "list_prompts", []), "prompts")) {
          if (typeof p.name === "string") found.push({ route: { instance: c.id, section: c.section, name: c.name, target: p.name }, prompt: p });
        }
      } catch {
        /* as above */
      }
    }
    promptRoutes = nameTools(found.map((f) => f.route));
    const byRoute = new Map(found.map((f) => [f.route, f.prompt]));
    return { prompts: [...promptRoutes].map(([name, route]) => ({ ...byRoute.get(route), name })) } as never;
  });
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const route = promptRoutes.get(req.params.name);
    if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${req.params.name.slice(0, 200)}: list the prompts first.`);
    try {
      return (await host.call(route.instance, "get_prompt", req.params.arguments ? [route.target, req.params.arguments] : [route.target])) as never;
    } catch (err) {
      throw protocolError(err);
    }
  });
}
