/**
 * What the gateway offers per instance, and how a tool's named arguments become a contract
 * call's positional ones. The default is read-only: an mcp connector's tools (after
 * allowed_tools) and the read methods of memory, skill and agent instances; methods that write
 * or deliver only when `gateway.expose` lists them for the instance. Adapters are never exposed:
 * they are hook machinery for one client, not tools.
 */
import { z } from "zod";
import { pbError, type PatchbayError } from "../errors.js";
import { callableMethods, type Kind } from "../contract/kinds.js";
import { methodSchema } from "../contract/schemas.js";

/** Read methods exposed by default, per kind (only those the plugin can answer). */
const DEFAULT_METHODS: Record<Kind, readonly string[]> = {
  "memory-store": ["query", "get"],
  "skill-store": ["get", "list"],
  agent: ["list_agents", "agent_status"],
  "local-model": [],
  mcp: [],
  adapter: [],
};

/**
 * The tool's argument object → the method's arguments. A string[] names each positional
 * argument; "whole" means the method takes one object and the tool's arguments are that object.
 */
const PARAMS: Partial<Record<Kind, Record<string, readonly string[] | "whole">>> = {
  "memory-store": { query: "whole", write: "whole", get: ["id"] },
  "skill-store": { get: ["name"], list: [], write: ["name", "body"], delete: ["name"] },
  agent: {
    list_agents: [],
    agent_status: ["agent_id"],
    deliver: ["agent_id", "payload"],
    wake: ["agent_id", "opts"],
    request_response: ["agent_id", "payload", "opts"],
  },
  "local-model": { run: ["prompt", "opts"], embed: ["texts"] },
};

const DESCRIPTIONS: Record<string, string> = {
  query: "Search the memory store; returns matching memories.",
  get: "Fetch one item by its id or name; null when absent.",
  write: "Write one item.",
  list: "List every name.",
  delete: "Delete one item by name.",
  list_agents: "List the agents this connector reaches.",
  agent_status: "The status of one agent.",
  deliver: "Deliver a message to an agent.",
  wake: "Wake an agent.",
  request_response: "Send a message to an agent and wait for its reply.",
  run: "Run the local model on a prompt.",
  embed: "Embed texts with the local model.",
};

export interface ExposureEntry {
  id: string;
  kind: Kind;
  capabilities: readonly string[];
}

/**
 * The contract methods of `entry` exposed as tools ("*" = every tool of an mcp connector), or
 * an error naming the gateway.expose pointer when the section asks for something impossible.
 */
export function exposedMethods(
  entry: ExposureEntry,
  expose: Readonly<Record<string, boolean | readonly string[]>>,
): string[] | PatchbayError {
  const setting = Object.hasOwn(expose, entry.id) ? expose[entry.id] : true;
  const pointer = `/gateway/expose/${entry.id.replace(/~/g, "~0").replace(/\//g, "~1")}`;
  if (setting === false) return [];
  if (entry.kind === "adapter")
    return Array.isArray(setting)
      ? configError(entry.id, pointer, "adapters are never exposed through the gateway")
      : [];
  if (entry.kind === "mcp")
    return setting === true
      ? ["*"]
      : configError(
          entry.id,
          pointer,
          "an mcp connector is exposed whole or not at all (true/false); choose its tools with allowed_tools",
        );
  const callable = callableMethods(entry.kind, entry.capabilities);
  if (setting === true) return DEFAULT_METHODS[entry.kind].filter((m) => callable.has(m));
  const bad = setting.filter((m) => m === "health_check" || !callable.has(m));
  if (bad.length > 0) {
    const offered = [...callable].filter((m) => m !== "health_check");
    return configError(
      entry.id,
      pointer,
      `${bad.map((m) => JSON.stringify(m)).join(", ")} ${bad.length === 1 ? "is" : "are"} not a method this ${entry.kind} instance offers (offered: ${offered.join(", ")})`,
    );
  }
  return [...new Set(setting)];
}

function configError(id: string, pointer: string, why: string): PatchbayError {
  return pbError(
    "PB_ERR_CONFIG_INVALID",
    `connectors.json ${pointer}: ${why}.`,
    { pointer, instance: id },
    "Fix the gateway section: true, false, or a list of the instance's contract methods.",
  );
}

/** Every instance named in gateway.expose must exist; a typo would otherwise expose nothing, silently. */
export function unknownExposeKeys(expose: Readonly<Record<string, unknown>>, ids: readonly string[]): PatchbayError[] {
  return Object.keys(expose)
    .filter((k) => !ids.includes(k))
    .map((k) =>
      configError(
        k,
        `/gateway/expose/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`,
        `"${k}" is not an instance in connectors.json (instances: ${ids.join(", ") || "none"})`,
      ),
    );
}

/** The MCP input schema of a contract method's tool, generated from the contract's zod schemas. */
export function methodInputSchema(kind: Kind, method: string): Record<string, unknown> {
  const params = PARAMS[kind]?.[method];
  const tuple = methodSchema(kind, method)?.args as z.ZodTuple | undefined;
  if (!params || !tuple) return { type: "object" };
  const items = tuple.def.items as z.ZodType[];
  const rest = tuple.def.rest as z.ZodType | null;
  if (params === "whole") return jsonSchema(items[0]);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  params.forEach((p, i) => {
    const schema = items[i] ?? rest;
    if (!schema) return;
    properties[p] = jsonSchema(schema);
    if (i < items.length && !schema.safeParse(undefined).success) required.push(p);
  });
  return { type: "object", properties, ...(required.length ? { required } : {}) };
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

export function methodDescription(instance: string, method: string): string {
  return `${DESCRIPTIONS[method] ?? `Calls ${method}.`} (${instance}.${method})`;
}

/** Named tool arguments → the method's positional arguments; a missing trailing optional is dropped. */
export function toPositional(kind: Kind, method: string, args: Record<string, unknown>): unknown[] {
  const params = PARAMS[kind]?.[method];
  if (!params) return [];
  if (params === "whole") return [args];
  const out = params.map((p) => args[p]);
  while (out.length > 0 && out[out.length - 1] === undefined) out.pop();
  return out;
}
