/**
 * The gateway's tool naming scheme (docs/gateway.md). A client sees one flat list of tools from
 * many instances, so every name says which instance it reaches:
 *
 *   mcp connector "github", tool "search"        → github__search
 *   memory store "primary", method "query"       → memory__primary__query
 *   skill store / agent / local model            → skills__… / agents__… / models__…
 *
 * Names use only [A-Za-z0-9_-] and at most 64 characters: the strictest rule among MCP clients
 * (some model APIs reject dots and longer names). A character outside that set becomes "_"; a name
 * that is too long, or that two routes would share, gets a short hash of its full route instead of
 * its tail, so a name never changes with the order instances are listed in.
 */
import { createHash } from "node:crypto";
import type { Section } from "../contract/kinds.js";

export const MAX_TOOL_NAME = 64;
const PREFIX: Record<Section, string> = {
  mcpConnectors: "", memoryStores: "memory", skillStores: "skills", agentConnectors: "agents", localModels: "models", adapters: "adapters",
};

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
const hash = (route: ToolRoute) => createHash("sha256").update(`${route.instance}\0${route.target}`).digest("hex").slice(0, 6);

function plainName(route: ToolRoute): string {
  const head = PREFIX[route.section] ? `${PREFIX[route.section]}__${route.name}` : route.name;
  return clean(`${head}__${route.target}`);
}

function hashedName(route: ToolRoute): string {
  const suffix = `_${hash(route)}`;
  return plainName(route).slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
}

/** Names for every route: stable, unique, valid. Routes that would collide all get hashed names. */
export function nameTools(routes: ToolRoute[]): Map<string, ToolRoute> {
  const counts = new Map<string, number>();
  for (const r of routes) counts.set(plainName(r), (counts.get(plainName(r)) ?? 0) + 1);
  const out = new Map<string, ToolRoute>();
  for (const r of routes) {
    const plain = plainName(r);
    const lossy = plain.length > MAX_TOOL_NAME || plain !== `${PREFIX[r.section] ? `${PREFIX[r.section]}__${r.name}` : r.name}__${r.target}`;
    // A name that lost characters could meet another route's untouched name: hash it too.
    out.set(counts.get(plain)! > 1 || lossy ? hashedName(r) : plain, r);
  }
  return out;
}
