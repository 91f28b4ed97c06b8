/**
 * Bounds on what one upstream server puts in the gateway's tool list. The list goes to every
 * client on every tools/list, and into models' context windows: a server listing 50,000 tools
 * with megabyte descriptions must not turn it into a 5 MB answer. Past a bound the instance's
 * list is cut (descriptions shortened, oversized tools and the tail dropped) and a warning names
 * the instance, once per distinct problem (the catalog is rebuilt on every health tick).
 */
import type { Host } from "../host/api.js";

export const MAX_TOOLS_PER_INSTANCE = 500;
export const MAX_DESCRIPTION_CHARS = 4_096;
/** A tool's inputSchema or outputSchema as JSON; a cut schema would be wrong, so the tool is left out. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
/** All of one instance's tools as JSON. */
export const MAX_INSTANCE_LIST_CHARS = 1024 * 1024;

export interface UpstreamTool {
  name: string;
  description?: unknown;
  inputSchema?: unknown;
  outputSchema?: unknown;
  [key: string]: unknown;
}

/** The tools of `instance` that fit, each with its description cut to size; problems reported through `warn`. */
export function boundTools<T extends UpstreamTool>(
  instance: string,
  tools: readonly T[],
  warn: (message: string, data: Record<string, unknown>) => void,
): T[] {
  const out: T[] = [];
  let chars = 0;
  let cut = 0;
  const oversized: string[] = [];
  if (tools.length > MAX_TOOLS_PER_INSTANCE) {
    warn(
      `${instance}: its server lists ${tools.length} tools; the gateway offers the first ${MAX_TOOLS_PER_INSTANCE}`,
      { instance, tools: tools.length, max_tools: MAX_TOOLS_PER_INSTANCE },
    );
  }
  for (const t of tools.slice(0, MAX_TOOLS_PER_INSTANCE)) {
    let tool = t;
    if (typeof t.description === "string" && t.description.length > MAX_DESCRIPTION_CHARS) {
      tool = { ...t, description: `${t.description.slice(0, MAX_DESCRIPTION_CHARS)}…` };
      cut++;
    }
    if (jsonChars(tool.inputSchema) > MAX_SCHEMA_CHARS || jsonChars(tool.outputSchema) > MAX_SCHEMA_CHARS) {
      oversized.push(tool.name);
      continue;
    }
    chars += jsonChars(tool);
    if (chars > MAX_INSTANCE_LIST_CHARS) {
      warn(
        `${instance}: its tools add up to more than ${MAX_INSTANCE_LIST_CHARS} characters; the gateway offers the first ${out.length}`,
        { instance, offered: out.length, max_list_chars: MAX_INSTANCE_LIST_CHARS },
      );
      break;
    }
    out.push(tool);
  }
  if (cut > 0)
    warn(`${instance}: ${cut} tool descriptions longer than ${MAX_DESCRIPTION_CHARS} characters were shortened`, {
      instance,
      shortened: cut,
      max_description_chars: MAX_DESCRIPTION_CHARS,
    });
  if (oversized.length > 0) {
    warn(
      `${instance}: ${oversized.length} tools with a schema over ${MAX_SCHEMA_CHARS} characters were left out (${oversized
        .slice(0, 5)
        .map((n) => JSON.stringify(n.slice(0, 64)))
        .join(", ")}${oversized.length > 5 ? ", …" : ""})`,
      { instance, left_out: oversized.length, max_schema_chars: MAX_SCHEMA_CHARS },
    );
  }
  return out;
}

function jsonChars(value: unknown): number {
  if (value === undefined) return 0;
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Infinity; // Cyclic or otherwise unsendable: as good as too big.
  }
}

const warned = new WeakMap<Host, Set<string>>();

/** A warning on the host's log, once per host and message (the catalog is rebuilt often). */
export function warnOnce(host: Host): (message: string, data: Record<string, unknown>) => void {
  let seen = warned.get(host);
  if (!seen) warned.set(host, (seen = new Set()));
  return (message, data) => {
    if (seen.has(message)) return;
    seen.add(message);
    host.logger.warn(data, message);
  };
}
