/**
 * host.capabilities() / host.list(section): per instance, what its plugin declares (the same
 * description `patchbay list` prints without booting) plus what only the running host knows:
 * health state, the MCP tools callers can see (list_tools through the guard, so after
 * allowed_tools) and the agents an agent connector serves (list_agents). Live lookups are bounded
 * by the instance's health timeout and never throw: a failed lookup is reported, not raised.
 */
import { toWire, type WireError } from "../errors.js";
import type { Section } from "../contract/kinds.js";
import type { ToolDescriptor } from "../contract/types.js";
import { describePlugin, type StaticCapabilities } from "../discovery/describe.js";
import type { DiscoveredPlugin } from "../discovery/scan.js";
import type { InstanceEntry, InstanceState } from "./registry.js";

export interface InstanceCapabilities extends Partial<StaticCapabilities> {
  /** "memoryStores/primary" */
  id: string;
  section: Section;
  name: string;
  aliases: string[];
  required: boolean;
  /** "not-started" when described without booting (`patchbay list`). */
  state: InstanceState | "not-started";
  healthMs: number | null;
  /** mcp: the tools a caller can use (after allowed_tools); null when not running or the lookup failed. */
  tools?: ToolDescriptor[] | null;
  /** mcp: allowed_tools names the server does not offer (they allow nothing), with the likeliest meant. */
  allowedToolsNotOffered?: { name: string; suggestion: string | null }[];
  /** mcp: the server's initialize instructions (server_info), when the plugin offers them and the server gave some. */
  instructions?: string;
  /** mcp: the server's name and version from initialize (server_info), for information (connectors.lock.json). */
  server?: { name?: string; version?: string };
  /** agent: the agent ids list_agents() returns; null when not running or the lookup failed. */
  agents?: string[] | null;
  /** Why the instance is not ready, or why a live lookup failed. */
  error: WireError | null;
}

/** What `patchbay list` shows for an instance without starting it: the plugin's declarations only. */
export function describeUnstarted(
  inst: { id: string; section: Section; name: string; required: boolean; allowedTools: readonly string[] | null },
  plugin: DiscoveredPlugin | null,
  aliases: string[],
  error: WireError | null,
): InstanceCapabilities {
  const out: InstanceCapabilities = {
    id: inst.id,
    section: inst.section,
    name: inst.name,
    aliases,
    required: inst.required,
    ...(plugin ? describePlugin(plugin, inst.allowedTools) : {}),
    state: "not-started",
    healthMs: null,
    error,
  };
  if (out.kind === "mcp") out.tools = null;
  if (out.kind === "agent") out.agents = null;
  return out;
}

export type Invoke = (
  entry: InstanceEntry,
  method: string,
  args: unknown[],
  opts: { timeoutMs?: number },
) => Promise<unknown>;

export async function describeInstances(
  entries: InstanceEntry[],
  aliasesOf: (id: string) => string[],
  invoke: Invoke,
): Promise<InstanceCapabilities[]> {
  return Promise.all(entries.map((e) => describeOne(e, aliasesOf(e.id), invoke)));
}

async function describeOne(e: InstanceEntry, aliases: string[], invoke: Invoke): Promise<InstanceCapabilities> {
  const out: InstanceCapabilities = {
    id: e.id,
    section: e.section,
    name: e.name,
    aliases,
    required: e.required,
    ...(e.planned ? describePlugin(e.planned.pluginInfo, e.planned.allowedTools) : {}),
    state: e.state,
    healthMs: e.healthMs,
    error: e.error,
  };
  const live = e.worker !== null && (e.state === "ready" || e.state === "degraded") && e.error === null;
  const timeoutMs = e.planned?.healthTimeoutMs;
  if (out.kind === "mcp") {
    out.tools = null;
    if (live) {
      try {
        out.tools = (await invoke(e, "list_tools", [], { timeoutMs })) as ToolDescriptor[];
        const notOffered = e.target?.allowedNotOffered;
        if (notOffered?.length) out.allowedToolsNotOffered = [...notOffered];
        if (e.planned?.pluginInfo.manifest.capabilities.includes("server_info")) {
          const info = (await invoke(e, "server_info", [], { timeoutMs })) as Record<string, unknown>;
          if (typeof info.instructions === "string") out.instructions = info.instructions;
          const server: { name?: string; version?: string } = {};
          // Shown to people and written to the lock file: short strings only.
          if (typeof info.name === "string") server.name = info.name.slice(0, 200);
          if (typeof info.version === "string") server.version = info.version.slice(0, 100);
          if (server.name !== undefined || server.version !== undefined) out.server = server;
        }
      } catch (err) {
        out.error = toWire(err);
      }
    }
  }
  if (out.kind === "agent") {
    out.agents = null;
    if (live) {
      try {
        out.agents = ((await invoke(e, "list_agents", [], { timeoutMs })) as { agent_id: string }[]).map(
          (a) => a.agent_id,
        );
      } catch (err) {
        out.error = toWire(err);
      }
    }
  }
  return out;
}
