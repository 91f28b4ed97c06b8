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
import { pbError } from "../errors.js";
import type { Host } from "../host/api.js";
import type { InstanceCapabilities } from "../registry/capabilities.js";
import { nameTools, type ToolRoute } from "./names.js";
import type { PinBook } from "./pins/pin-book.js";
import type { PatchbayError } from "../errors.js";

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

/** Which instances a caller sees whole (its resources and prompts): clients/caller.ts seesWhole. */
export type Sees = (instance: string) => boolean;
/** The operator's view: every instance (the handlers skip their per-caller checks for it). */
export const ALL: Sees = () => true;

/** At most this many remembered URI owners; past it the book starts over (a list refills it). */
const MAX_ROUTES = 10_000;

/**
 * Which instance serves a URI or a prompt name, shared by every client of the gateway: a client
 * that reads or gets without listing first (a reconnecting client with a cached catalog, the MCP
 * Inspector CLI) is routed by the URI or the name alone, and a session ending forgets nothing.
 * A miss lists every connector once (inside the gateway) and looks again.
 */
export class PassthroughRoutes {
  private readonly uriOwner = new Map<string, string>();
  private prompts = new Map<string, ToolRoute>();
  /** Prompts withheld by their pins, by the name a client would get them by. */
  private heldPrompts = new Map<string, PatchbayError>();

  constructor(
    private readonly host: Host,
    private readonly current: () => Passthrough,
    /** Prompts and resource templates are held to connectors.lock.json as tools are (pins/pin-book.ts). */
    private readonly pins: PinBook | null = null,
  ) {}

  /** One instance's list as clients may see it: what its pins let through (the rest withheld). */
  private reviewed(
    instance: string,
    list: "prompts" | "resourceTemplates",
    defs: Record<string, unknown>[],
  ): { served: Record<string, unknown>[]; withheld: { name: string; error: PatchbayError }[] } {
    if (!this.pins) return { served: defs, withheld: [] };
    const named = defs.filter((d): d is { name: string } & Record<string, unknown> => typeof d.name === "string");
    const out = this.pins.review(instance, list, named);
    this.pins.flush();
    return out;
  }

  knownOwner(uri: string): string | undefined {
    return this.uriOwner.get(uri);
  }

  /** `sees`: the caller's view (clients/caller.ts); an instance it does not see is not even asked. */
  async listResources(sees: Sees = ALL): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    const seen = new Map<string, string>();
    for (const c of this.current().resources) {
      if (!sees(c.id)) continue;
      try {
        for (const r of items(await this.host.call(c.id, "list_resources", []), "resources")) {
          // The first instance that lists a URI owns it.
          if (typeof r.uri !== "string" || (seen.get(r.uri) ?? c.id) !== c.id) continue;
          seen.set(r.uri, c.id);
          all.push(r);
        }
      } catch {
        /* One instance's failure leaves the others' resources listed. */
      }
    }
    if (this.uriOwner.size + seen.size > MAX_ROUTES) this.uriOwner.clear();
    for (const [uri, id] of seen) if (this.uriOwner.size < MAX_ROUTES) this.uriOwner.set(uri, id);
    return all;
  }

  /** The instance that serves `uri`: a known owner, the only resource connector, or one that lists it now. */
  async ownerOf(uri: string): Promise<string | undefined> {
    const p = this.current();
    const known = this.uriOwner.get(uri);
    if (known && p.resources.some((c) => c.id === known)) return known;
    if (p.resources.length === 1) return p.resources[0].id;
    await this.listResources();
    return this.uriOwner.get(uri);
  }

  /**
   * Whether a caller seeing `sees` may not read `uri`: its owner is out of view, or no one owns it
   * and no resource connector is in view. Asked before the caller's quota is taken, so that a
   * refusal by policy is answered as one and costs nothing.
   */
  async outOfView(uri: string, sees: Sees): Promise<boolean> {
    const owner = await this.ownerOf(uri);
    if (owner) return !sees(owner);
    const resources = this.current().resources;
    return resources.length > 0 && !resources.some((c) => sees(c.id));
  }

  /**
   * Reads `uri` from its owner; `refuse` answers a caller whose view leaves the owner out.
   * `reached` hears each instance asked, just before it is (the audit trail names it).
   */
  async readResource(
    uri: string,
    sees: Sees = ALL,
    refuse?: () => Error,
    reached: (instance: string) => void = () => undefined,
  ): Promise<unknown> {
    const owner = await this.ownerOf(uri);
    if (owner && !sees(owner)) throw refuse?.();
    if (owner) {
      reached(owner);
      return this.host.call(owner, "read_resource", [uri]);
    }
    // A URI no connector lists (one from a template): the first connector that can read it.
    const candidates = this.current().resources.filter((c) => sees(c.id));
    if (candidates.length === 0 && refuse && this.current().resources.length > 0) throw refuse();
    if (candidates.length === 0)
      throw pbError(
        "PB_ERR_GATEWAY_RESOURCE_UNKNOWN",
        `No connector serves resources now, so ${uri.slice(0, 200)} cannot be read.`,
        { uri: uri.slice(0, 200) },
      );
    let first: unknown;
    for (const c of candidates) {
      try {
        reached(c.id);
        return await this.host.call(c.id, "read_resource", [uri]);
      } catch (err) {
        first ??= err;
      }
    }
    throw first;
  }

  /**
   * Every instance is listed whatever `sees` says: prompt names are made unique across all of
   * them (names.ts), and a client must get the same names the operator does.
   */
  async listPrompts(sees: Sees = ALL): Promise<Record<string, unknown>[]> {
    const found: { route: ToolRoute; prompt: Record<string, unknown> }[] = [];
    const held: { route: ToolRoute; error: PatchbayError }[] = [];
    for (const c of this.current().prompts) {
      try {
        const route = (target: string): ToolRoute => ({ instance: c.id, section: c.section, name: c.name, target });
        const listed = items(await this.host.call(c.id, "list_prompts", []), "prompts");
        const { served, withheld } = this.reviewed(c.id, "prompts", listed);
        for (const p of served) if (typeof p.name === "string") found.push({ route: route(p.name), prompt: p });
        for (const w of withheld) held.push({ route: route(w.name), error: w.error });
      } catch {
        /* as above */
      }
    }
    this.prompts = nameTools(found.map((f) => f.route));
    const heldNames = new Map(held.map((h) => [h.route, h.error]));
    this.heldPrompts = new Map();
    for (const [name, route] of nameTools([...found.map((f) => f.route), ...held.map((h) => h.route)]))
      if (!this.prompts.has(name) && heldNames.has(route)) this.heldPrompts.set(name, heldNames.get(route)!);
    const byRoute = new Map(found.map((f) => [f.route, f.prompt]));
    return [...this.prompts]
      .filter(([, route]) => sees(route.instance))
      .map(([name, route]) => ({ ...byRoute.get(route), name }));
  }

  getPrompt(route: ToolRoute, args: Record<string, unknown> | undefined): Promise<unknown> {
    return this.host.call(route.instance, "get_prompt", args ? [route.target, args] : [route.target]);
  }

  /** The route of a prompt clients may get, or the refusal of one its pins withhold. */
  async promptRoute(name: string): Promise<ToolRoute | PatchbayError | undefined> {
    if (!this.prompts.has(name)) await this.listPrompts();
    return this.prompts.get(name) ?? this.heldPrompts.get(name);
  }

  /** Every template connector's templates that their pins let through. */
  async listTemplates(sees: Sees = ALL): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    for (const c of this.current().templates) {
      if (!sees(c.id)) continue;
      try {
        const listed = items(await this.host.call(c.id, "list_resource_templates", []), "resourceTemplates");
        all.push(...this.reviewed(c.id, "resourceTemplates", listed).served);
      } catch {
        /* as above */
      }
    }
    return all;
  }
}
