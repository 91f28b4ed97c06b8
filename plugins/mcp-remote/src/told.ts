/**
 * The tool definitions the host was last told (list_tools), so a call is never sent to a tool whose
 * definition changed under it. A server can change a tool between two lists: after a restart (a new
 * session lists again), or with list_changed. The gateway checks every definition against the
 * operator's pins (connectors.lock.json) when it reads the list; a call made before that read would
 * reach the new definition unchecked. So when a call's own list differs from what the host was told
 * for that tool, the call is not sent, and the host is asked to read the list again.
 */
import type { PluginContext, ToolDescriptor } from "patchbay/plugin";

export class ToldDefinitions {
  /** Tool name → its descriptor's JSON as the host last received it; null: the host never listed. */
  private told: Map<string, string> | null = null;

  constructor(private readonly ctx: PluginContext) {}

  remember(tools: readonly ToolDescriptor[]): void {
    this.told = new Map(tools.map((t) => [t.name, JSON.stringify(t)]));
  }

  /**
   * Throws PB_ERR_TOOL_CHANGED when `tool` is not as the host was told. Not unavailable(): the server is up,
   * and the host must not withdraw the instance's other tools over one changed definition.
   */
  check(tool: string, listed: readonly ToolDescriptor[], target: string): void {
    const told = this.told;
    if (told === null) return;
    let changed = listed.length !== told.size;
    let mine: string | undefined;
    for (const t of listed) {
      const json = JSON.stringify(t);
      if (t.name === tool) mine = json;
      if (!changed && told.get(t.name) !== json) changed = true;
    }
    if (!changed) return;
    this.ctx.listChanged?.("tools");
    if (mine !== undefined && mine === told.get(tool)) return;
    throw new ToolChanged(
      `tools/call "${tool}": ${target} now ${mine === undefined ? "lists no such tool" : "defines this tool otherwise"} than when the host last read its tools; not called. The host reads them again and checks them before the next call.`,
      tool,
    );
  }
}

/**
 * PB_ERR_TOOL_CHANGED as the host reads a plugin's own copy of its error class (errors/wire.ts: by
 * name and catalogue code), so the caller gets the code that says "call again" rather than a bug's.
 */
class ToolChanged extends Error {
  override readonly name = "PatchbayError";
  readonly code = "PB_ERR_TOOL_CHANGED";
  readonly data: { tool: string };
  constructor(message: string, tool: string) {
    super(message);
    this.data = { tool };
  }
}
