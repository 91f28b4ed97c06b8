/**
 * The gateway's tool list: every exposed, healthy instance's tools under their gateway names
 * (names.ts), rebuilt from host.capabilities() (so after allowed_tools, and only for instances
 * that are live). An instance that is not ready contributes nothing: its tools disappear.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Host } from "../host/api.js";
import type { InstanceCapabilities } from "../registry/capabilities.js";
import { exposedMethods, methodDescription, methodInputSchema, unknownExposeKeys } from "./exposure.js";
import { nameTools, type ToolRoute } from "./names.js";
import { boundTools, warnOnce, type UpstreamTool } from "./catalog-bounds.js";
import type { PatchbayError } from "../errors.js";
import { passthroughOf, type Passthrough } from "./resources.js";
import type { PinBook } from "./pins/pin-book.js";

/** Fields of an upstream tool descriptor that pass through unchanged when the connector has them. */
const PASS_THROUGH = ["title", "annotations", "outputSchema", "_meta", "icons"] as const;

export interface CatalogTool {
  route: ToolRoute;
  kind: InstanceCapabilities["kind"] & string;
  tool: Tool;
}

export interface Catalog {
  tools: Map<string, CatalogTool>;
  /** Instances left out, with why (not ready, a failed tools lookup). */
  skipped: { instance: string; reason: string }[];
  /** The gateway section asks for something impossible (checked at serve start). */
  errors: PatchbayError[];
  /** Live, exposed mcp instances that also answer resources / prompts (resources.ts). */
  passthrough: Passthrough;
  /** Every exposed instance, live or not (a subscription outlives a spell of ill health, not its exposure). */
  exposed: Set<string>;
  /** Tools withheld by their pins (pins/pin-book.ts), by the name a client would call them: the refusal to give. */
  withheld: Map<string, PatchbayError>;
}

export async function buildCatalog(
  host: Host,
  expose: Readonly<Record<string, boolean | readonly string[]>>,
  pins: PinBook | null = null,
): Promise<Catalog> {
  const caps = await host.capabilities();
  const errors: PatchbayError[] = unknownExposeKeys(
    expose,
    caps.map((c) => c.id),
  );
  const skipped: Catalog["skipped"] = [];
  const exposedMcp = new Set<string>();
  const exposed = new Set<string>();
  const pending: { route: ToolRoute; kind: CatalogTool["kind"]; make: (name: string) => Tool }[] = [];
  const held: { route: ToolRoute; error: PatchbayError }[] = [];
  for (const c of caps) {
    if (!c.kind) continue;
    const methods = exposedMethods({ id: c.id, kind: c.kind, capabilities: c.optional ?? [] }, expose);
    if (!Array.isArray(methods)) {
      errors.push(methods);
      continue;
    }
    if (methods.length === 0) continue;
    exposed.add(c.id);
    if (!isLive(c)) {
      skipped.push({ instance: c.id, reason: c.error ? c.error.message : `state ${c.state}` });
      continue;
    }
    const route = (target: string): ToolRoute => ({ instance: c.id, section: c.section, name: c.name, target });
    if (c.kind === "mcp") {
      exposedMcp.add(c.id);
      const bounded = boundTools(c.id, (c.tools ?? []) as unknown as UpstreamTool[], warnOnce(host));
      // Held to their pins as clients would see them (after the bounds), before any client does.
      const { served, withheld } = pins
        ? pins.review(c.id, "tools", bounded as (UpstreamTool & Record<string, unknown>)[], c.server)
        : { served: bounded, withheld: [] };
      for (const w of withheld) held.push({ route: route(w.name), error: w.error });
      for (const t of served) {
        pending.push({
          route: route(t.name),
          kind: c.kind,
          make: (name) => upstreamTool(name, t as unknown as Record<string, unknown>),
        });
      }
      continue;
    }
    const kind = c.kind;
    for (const m of methods) {
      pending.push({
        route: route(m),
        kind,
        make: (name) => ({
          name,
          description: methodDescription(c.id, m),
          inputSchema: methodInputSchema(kind, m) as Tool["inputSchema"],
        }),
      });
    }
  }
  pins?.flush();
  const named = nameTools(pending.map((p) => p.route));
  const byRoute = new Map(pending.map((p) => [p.route, p]));
  const tools = new Map<string, CatalogTool>();
  for (const [name, route] of named) {
    const p = byRoute.get(route)!;
    tools.set(name, { route, kind: p.kind, tool: p.make(name) });
  }
  return {
    tools,
    skipped,
    errors,
    passthrough: passthroughOf(caps, exposedMcp),
    exposed,
    withheld: withheldNames(named, pending, held),
  };
}

/**
 * The names withheld tools would be called by. They take no part in naming the served ones: a new
 * tool named like another instance's approved one must not rename that one. A withheld name that a
 * served tool holds is the served tool's.
 */
function withheldNames(
  served: Map<string, ToolRoute>,
  pending: { route: ToolRoute }[],
  held: { route: ToolRoute; error: PatchbayError }[],
): Map<string, PatchbayError> {
  const out = new Map<string, PatchbayError>();
  if (held.length === 0) return out;
  const errors = new Map(held.map((h) => [h.route, h.error]));
  for (const [name, route] of nameTools([...pending.map((p) => p.route), ...held.map((h) => h.route)]))
    if (!served.has(name) && errors.has(route)) out.set(name, errors.get(route)!);
  return out;
}

function isLive(c: InstanceCapabilities): boolean {
  return (
    (c.state === "ready" || c.state === "degraded") && c.error === null && (c.kind !== "mcp" || Array.isArray(c.tools))
  );
}

function upstreamTool(name: string, t: Record<string, unknown>): Tool {
  const out: Record<string, unknown> = { name };
  if (typeof t.description === "string") out.description = t.description;
  out.inputSchema =
    t.inputSchema && typeof t.inputSchema === "object"
      ? { ...(t.inputSchema as object), type: "object" }
      : { type: "object" };
  for (const key of PASS_THROUGH) if (t[key] !== undefined) out[key] = t[key];
  return out as Tool;
}

/** A fingerprint of what clients see: list_changed is sent only when it changes. */
export function catalogKey(c: Catalog): string {
  // Code-point order: any fixed order serves, and localeCompare's first call builds ICU's collator (~15 ms of a
  // serve's start).
  return JSON.stringify(
    [...c.tools.values()].map((t) => t.tool).sort((a, b) => (a.name < b.name ? -1 : +(a.name > b.name))),
  );
}
