/**
 * The plugin kinds, the connectors.json section each lives in, and the methods of each kind's
 * contract. The host's capability guard (guard/guard.ts) refuses anything not listed here.
 */

export const KINDS = ["memory-store", "local-model", "mcp", "agent", "skill-store", "adapter"] as const;
export type Kind = (typeof KINDS)[number];

export const SECTION_OF_KIND = Object.freeze({
  "memory-store": "memoryStores",
  "local-model": "localModels",
  mcp: "mcpConnectors",
  agent: "agentConnectors",
  "skill-store": "skillStores",
  adapter: "adapters",
} as const satisfies Record<Kind, string>);

export type Section = (typeof SECTION_OF_KIND)[Kind];
export const SECTIONS = Object.values(SECTION_OF_KIND) as Section[];

export const KIND_OF_SECTION = Object.freeze(
  Object.fromEntries(Object.entries(SECTION_OF_KIND).map(([k, s]) => [s, k])) as Record<Section, Kind>,
);

interface MethodTable {
  /** Methods every plugin of the kind implements (health_check included). */
  readonly required: readonly string[];
  /** Methods a plugin may implement; callable only when its manifest lists them in "capabilities". */
  readonly optional: readonly string[];
}

export const METHODS: Readonly<Record<Kind, MethodTable>> = Object.freeze({
  "memory-store": { required: ["health_check", "query"], optional: ["write", "get"] },
  "local-model": { required: ["health_check", "run"], optional: ["embed"] },
  // The optional mcp methods mirror MCP's own requests (resources/*, prompts/*) and the server's initialize answer.
  // subscribe_resource/unsubscribe_resource: resources/subscribe and /unsubscribe; updates come back as
  // resource-updated messages (contract/rpc.ts), not as call results.
  mcp: {
    required: ["health_check", "call", "list_tools"],
    optional: [
      "list_resources",
      "read_resource",
      "list_resource_templates",
      "subscribe_resource",
      "unsubscribe_resource",
      "list_prompts",
      "get_prompt",
      "server_info",
    ],
  },
  agent: {
    required: ["health_check", "list_agents", "deliver", "wake", "request_response"],
    optional: ["agent_status"],
  },
  "skill-store": { required: ["health_check", "get", "write", "list", "delete"], optional: [] },
  // Adapters: the capability-backing methods are optional (src/adapter-sdk/contract.ts maps each capability to them).
  adapter: {
    required: ["health_check", "manifest", "detect", "doctor", "normalizeHook", "renderContext", "planInstall"],
    optional: [
      "denyOutcome",
      "injectOutcome",
      "startSession",
      "resumeSession",
      "endSession",
      "heartbeat",
      "mapChildSession",
      "guardRead",
      "guardWrite",
      "guardShell",
      "offerMessage",
      "routeReply",
      "trustHooks",
      "untrustHooks",
    ],
  },
});

export function isKind(value: unknown): value is Kind {
  return typeof value === "string" && (KINDS as readonly string[]).includes(value);
}

export function isSection(value: unknown): value is Section {
  return typeof value === "string" && (SECTIONS as readonly string[]).includes(value);
}

/** Methods a host may call on a plugin of `kind` that declares `capabilities`. */
export function callableMethods(kind: Kind, capabilities: readonly string[]): Set<string> {
  const table = METHODS[kind];
  return new Set([...table.required, ...table.optional.filter((m) => capabilities.includes(m))]);
}
