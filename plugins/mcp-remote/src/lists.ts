/**
 * MCP's paginated lists (tools, resources, templates, prompts) followed to the end under one
 * deadline, and the tool descriptor the contract carries (MCP's Tool, minus what only the SDK uses).
 */
import type { ToolDescriptor } from "patchbay/plugin";
import type { RequestOpts } from "./connection.js";
import { requestTimeout } from "./deadlines.js";

/** A server that keeps handing out cursors is broken; stop rather than loop until the deadline. */
const MAX_PAGES = 1_000;

export async function collectPages<P extends { nextCursor?: string }, T>(
  what: string,
  target: string,
  deadline: number,
  signal: AbortSignal,
  fetchPage: (cursor: string | undefined, opts: RequestOpts) => Promise<P>,
  items: (page: P) => T[],
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    // Every page gets what is left of the one deadline.
    const result = await fetchPage(cursor, { timeout: requestTimeout(deadline), signal });
    out.push(...items(result));
    cursor = result.nextCursor;
    if (cursor === undefined) return out;
    if (seen.has(cursor))
      throw new Error(`${what}: ${target} repeated the pagination cursor ${JSON.stringify(cursor)}`);
    seen.add(cursor);
  }
  throw new Error(`${what}: ${target} returned more than ${MAX_PAGES} pages`);
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

export function toDescriptor(tool: {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}): ToolDescriptor {
  const out: ToolDescriptor = { name: tool.name };
  if (typeof tool.title === "string") out.title = tool.title;
  if (typeof tool.description === "string") out.description = tool.description;
  if (isObject(tool.inputSchema)) out.inputSchema = tool.inputSchema;
  if (isObject(tool.outputSchema)) out.outputSchema = tool.outputSchema;
  if (isObject(tool.annotations)) out.annotations = tool.annotations;
  return out;
}
