/**
 * The gateway's tool naming scheme (docs/gateway.md). A client sees one flat list of tools from
 * many instances, so every name says which instance it reaches:
 *
 *   mcp connector "github", tool "search"        → github__search
 *   memory store "primary", method "query"       → memory__primary__query
 *   skill store / agent / local model            → skills__… / agents__… / models__…
 *
 * Names use only [A-Za-z0-9_-] and at most 64 characters: the strictest rule among MCP clients
 * (some model APIs reject dots and longer names). A character outside that set becomes "_".
 *
 * A name is `<head>__<tail>`: the head says the instance (operator-chosen), the tail the tool
 * (for mcp, whatever the upstream server sends, so untrusted). The tail never contains "__" and
 * never starts or ends with "_", so the LAST "__" of every name is the boundary: two instances
 * with different heads can never produce the same name, and no server can make its tool look
 * like another instance's (an mcp connector "memory" listing "primary__query" would otherwise
 * read as the memory store's `memory__primary__query`). A tool whose name is kept whole (only
 * [A-Za-z0-9_-], no "__", no edge "_", short enough) keeps it; any other gets a tail squashed to
 * that shape plus "_" and six hex digits of a hash of its own route. A name depends only on its
 * own route, never on other routes or their order, so an honest catalog's names are stable
 * whatever another server lists. What is left, two instances the operator named into one head
 * (an mcp connector "memory__primary" next to memory store "primary"), or a server colliding
 * with its own tools, is settled by a fixed priority (contract sections before mcp, then the
 * route itself): the loser gets a longer hash, never the winner's
 * name.
 */
import { createHash } from "node:crypto";
import type { Section } from "../contract/kinds.js";

export const MAX_TOOL_NAME = 64;
const PREFIX: Record<Section, string> = {
  mcpConnectors: "",
  memoryStores: "memory",
  skillStores: "skills",
  agentConnectors: "agents",
  localModels: "models",
  adapters: "adapters",
};
/** Lower first: contract methods (names the host chose) before tools an upstream server chose. */
const PRIORITY: Record<Section, number> = {
  memoryStores: 0,
  skillStores: 1,
  agentConnectors: 2,
  localModels: 3,
  adapters: 4,
  mcpConnectors: 5,
};
/** The longest head kept whole: leaves room for "__", a short tail and its "_" + hash. */
const MAX_HEAD = 40;

export interface ToolRoute {
  /** "section/name" of the instance. */
  instance: string;
  section: Section;
  /** The instance's name within its section. */
  name: string;
  /** mcp: the server's tool name; other kinds: the contract method. */
  target: string;
}

const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_");
/** No "__" inside, no "_" at either end: the shape every tail has. */
const squash = (s: string) =>
  clean(s)
    .replace(/_{2,}/g, "_")
    .replace(/^_+|_+$/g, "");
const digest = (s: string, hexChars: number) => createHash("sha256").update(s).digest("hex").slice(0, hexChars);

/** The instance part of every name of this route; a head too long is cut and marked with a hash of the instance. */
function headOf(route: ToolRoute): string {
  const head = clean(PREFIX[route.section] ? `${PREFIX[route.section]}__${route.name}` : route.name);
  if (head.length <= MAX_HEAD) return head;
  return `${head.slice(0, MAX_HEAD - 7).replace(/_+$/, "")}_${digest(route.instance, 6)}`;
}

function nameOf(route: ToolRoute, hexChars = 6): string {
  const head = headOf(route);
  const whole = `${head}__${route.target}`;
  if (hexChars === 6 && route.target === squash(route.target) && route.target !== "" && whole.length <= MAX_TOOL_NAME)
    return whole;
  const suffix = digest(`${route.instance}\0${route.target}`, hexChars);
  const room = MAX_TOOL_NAME - head.length - 2 - suffix.length - 1;
  const tail = squash(route.target).slice(0, Math.max(0, room)).replace(/_+$/, "");
  return `${head}__${tail ? `${tail}_` : ""}${suffix}`;
}

function rank(a: ToolRoute, b: ToolRoute): number {
  return PRIORITY[a.section] - PRIORITY[b.section] || cmp(a.instance, b.instance) || cmp(a.target, b.target);
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Names for every route: stable, unique, valid, none inside another instance's names. Case is
 * kept (MCP names are case-sensitive, and a server may list "Search" next to "search"); a case
 * variant can only ever name a tool of its own instance, since the head is the operator's.
 */
export function nameTools(routes: ToolRoute[]): Map<string, ToolRoute> {
  const names = new Map<ToolRoute, string>();
  const taken = new Set<string>();
  const seen = new Set<string>();
  for (const r of [...routes].sort(rank)) {
    // A server listing one tool twice: one name.
    const key = `${r.instance}\0${r.target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let name = nameOf(r);
    // Only a clash the operator made, or a server made with its own tools (or a forged hash): a longer hash, then
    // longer still.
    for (let hex = 12; taken.has(name) && hex <= 24; hex += 6) name = nameOf(r, hex);
    if (taken.has(name)) continue; // Three forged hashes deep: not worth a name.
    taken.add(name);
    names.set(r, name);
  }
  // In the order the routes came (the catalog's order), whatever order settled the clashes.
  const out = new Map<string, ToolRoute>();
  for (const r of routes) {
    const name = names.get(r);
    if (name !== undefined) out.set(name, r);
  }
  return out;
}
