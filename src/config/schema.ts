/**
 * connectors.json (v1): the zod schema. It is the single source of truth: load.ts validates
 * with it and schemas/connectors.schema.json is generated from it (json-schema.ts), so every
 * field carries a description that editors show.
 *
 * Validate `stripComments(raw)` (comments.ts), not the raw file: `_` keys are comments and are
 * removed before validation everywhere except inside `config` and `identity`. The JSON Schema
 * still has to let editors accept them, hence the COMMENTS pattern below.
 */
import { z } from "zod";
import { SECTIONS, type Section } from "../contract/kinds.js";
import { portableNameProblem } from "../contract/names.js";
import { AUDIT_DEFAULTS, DEFAULTS } from "./defaults.js";
import { clientsSchema, oauthSchema, stateSchema } from "./gateway-clients-schema.js";

export const DEFAULT_PLUGIN_DIRS: readonly string[] = Object.freeze(["./plugins"]);

/** Instance keys that only an mcp instance understands; elsewhere they would be silently ignored. */
export const MCP_ONLY_KEYS = ["allowed_tools", "identity"] as const;

/**
 * Mirrors contract/names.ts PORTABLE for the JSON Schema only (editors cannot run
 * portableNameProblem). zod validation uses portableNameProblem itself, which is stricter.
 */
const PORTABLE_PATTERN = "[A-Za-z0-9][A-Za-z0-9._-]{0,199}";

/** JSON Schema only: `_` keys are comments, stripped before zod sees the file. */
const COMMENTS = { patternProperties: { "^_": { description: "A comment: ignored by Patchbay." } } };

/**
 * A portable name, validated by portableNameProblem so messages say what is wrong; the
 * `pattern` in meta goes only into the JSON Schema. It also admits `_` keys there, because in a
 * record the key schema becomes `propertyNames` and comments must not be flagged by editors.
 */
const instanceName = z
  .string()
  .superRefine((value, ctx) => {
    const problem = portableNameProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: `instance name ${problem}` });
  })
  .meta({ pattern: `^(?:_.*|${PORTABLE_PATTERN})$` });

const pluginName = z
  .string()
  .superRefine((value, ctx) => {
    const problem = portableNameProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: `plugin name ${problem}` });
  })
  .meta({
    pattern: `^${PORTABLE_PATTERN}$`,
    description: 'Name of the plugin (its plugin.json "name") this instance runs.',
  });

const instanceRef = z
  .string()
  .regex(new RegExp(`^(?:${SECTIONS.join("|")})/${PORTABLE_PATTERN}$`), {
    message: 'must be "section/name" of an instance, e.g. "memoryStores/primary"',
  })
  .meta({ description: 'An instance as "section/name", e.g. "memoryStores/primary".' });

const positiveInt = () => z.number().int().positive();
const memoryMb = () => z.number().int().min(16);

/** The fields every section's instance object has, in the order the JSON Schema lists them. */
const commonFields = {
  plugin: pluginName,
  required: z.boolean().default(true).meta({
    description:
      "When true (default), boot fails if this instance is unhealthy; when false it is reported degraded and boot continues.",
  }),
  timeout_ms: positiveInt()
    .optional()
    .meta({ description: "Deadline of each call to this instance, in ms. Default: defaults.timeout_ms." }),
  health_timeout_ms: positiveInt()
    .optional()
    .meta({ description: "Deadline of the boot health check, in ms. Default: defaults.health_timeout_ms." }),
  max_memory_mb: memoryMb()
    .optional()
    .meta({ description: "Heap limit of the instance's worker, in MiB (>= 16). Default: defaults.max_memory_mb." }),
  health_interval_ms: positiveInt().optional().meta({
    description:
      "While `patchbay serve` runs: how often this instance's health_check runs, in ms. Default: defaults.health_interval_ms.",
  }),
  isolation: z.enum(["thread", "process", "sandbox", "host"]).default("thread").meta({
    description:
      "Where the instance runs: \"thread\" (default) is a worker thread of the host; \"process\" is a child process under Node's permission model, which may read only its plugin folder, Patchbay's own files and the manifest's permissions.fs paths (resolved against this file's folder), and may not start processes or threads. A seat belt against mistakes, not a sandbox: the network is not restricted. \"sandbox\" runs that child under bubblewrap (Debian's bubblewrap package): its own PID, network and mount namespaces, only its folder (read-only), Node and the declared paths visible, no network unless permissions.net grants it; the security boundary for untrusted plugins. \"host\" runs a plugin bundled with Patchbay (only those: any other is refused with PB_ERR_ISOLATION_HOST_DENIED) on the host's own thread, with no worker thread between them: the fastest calls (for mcp-remote under `serve --mcp`, no thread hop per call), at a price: the plugin sees the host's whole environment, has no heap limit of its own, and a plugin stuck in a busy loop freezes the host (its calls' deadlines still fail them). Messages are still checked as untrusted input, and mcp-remote's upstream server stays a separate process (docs/isolation.md).",
  }),
  worker: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "a group name: lower-case letters, digits, - and _, at most 64")
    .optional()
    .meta({
      description:
        "Group mode: instances naming the same group share one worker thread (far less memory and start time per instance). Only for instances you trust together: they share memory, env and the event loop, and a crash in one restarts the whole group. Thread isolation only.",
    }),
};

const trailingFields = {
  grants: z.array(instanceRef).default([]).meta({
    description:
      'Instances this instance\'s plugin may call through ctx.connectors (its plugin.json must also list them in "requires").',
  }),
  config: z.record(z.string(), z.unknown()).default({}).meta({
    description:
      "The plugin's own settings, validated by the plugin's config schema. ${VAR} and ${VAR:-default} are resolved in every string.",
  }),
};

const mcpFields = {
  allowed_tools: z
    .array(z.string())
    .optional()
    .meta({ description: "Tools callers may use: absent = every tool, [] = none, a list = exactly those names." }),
  identity: z.record(z.string(), z.unknown()).optional().meta({
    description: "Identity merged over each call's context overrides: keys named here win, other keys flow through.",
  }),
};

const SECTION_DOC: Record<Section, string> = {
  memoryStores: "Memory store instances (plugin kind memory-store).",
  localModels: "Local model instances (plugin kind local-model).",
  mcpConnectors: "MCP connector instances (plugin kind mcp).",
  agentConnectors: "Agent connector instances (plugin kind agent).",
  skillStores: "Skill store instances (plugin kind skill-store).",
  adapters: "AI client adapter instances (plugin kind adapter).",
};

function instanceSchema(section: Section) {
  const shape =
    section === "mcpConnectors"
      ? { ...commonFields, ...mcpFields, ...trailingFields }
      : { ...commonFields, ...trailingFields };
  return z
    .strictObject(shape)
    .refine((v) => !(v.worker !== undefined && v.isolation !== undefined && v.isolation !== "thread"), {
      message: 'a "worker" group runs in a thread: remove "worker", or "isolation"',
      path: ["worker"],
    })
    .meta({ description: `One ${section} instance: which plugin runs it and how.`, ...COMMENTS });
}

function sectionSchema(section: Section) {
  const alias = z
    .string()
    .meta({ description: `An alias: the name of another instance in ${section} (aliases may chain, not cycle).` });
  return z
    .record(instanceName, z.union([alias, instanceSchema(section)]))
    .default({})
    .meta({ description: `${SECTION_DOC[section]} Keys are instance names; a string value is an alias.`, ...COMMENTS });
}

const DefaultsSchema = z
  .strictObject({
    timeout_ms: positiveInt().default(DEFAULTS.timeout_ms).meta({ description: "Default per-call deadline, in ms." }),
    health_timeout_ms: positiveInt()
      .default(DEFAULTS.health_timeout_ms)
      .meta({ description: "Default boot health-check deadline, in ms." }),
    max_memory_mb: memoryMb()
      .default(DEFAULTS.max_memory_mb)
      .meta({ description: "Default worker heap limit, in MiB (>= 16)." }),
    health_interval_ms: positiveInt()
      .default(DEFAULTS.health_interval_ms)
      .meta({ description: "While `patchbay serve` runs: how often each instance's health_check runs, in ms." }),
  })
  .default({ ...DEFAULTS })
  .meta({ description: "Values every instance gets unless it sets its own.", ...COMMENTS });

const pinningMode = z.enum(["enforce", "warn", "off"]);

/** What `patchbay serve --mcp|--http` offers AI clients; the default is read-only. */
const auditSchema = z
  .strictObject({
    maxBytes: z
      .number()
      .int()
      .min(1024)
      .max(2 ** 40)
      .optional()
      .meta({ description: `Rotate .patchbay/audit.log past this size (default ${AUDIT_DEFAULTS.maxBytes}).` }),
    keep: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .meta({
        description: `Rotated files kept: audit.log.1 (newest) to audit.log.N (default ${AUDIT_DEFAULTS.keep}).`,
      }),
  })
  .optional()
  .meta({
    description:
      "The audit trail of `serve --http`: one JSON line per request that reached an instance in .patchbay/audit.log (and in PostgreSQL with gateway.state); read it with `patchbay audit`.",
  });

const GatewaySchema = z
  .strictObject({
    expose: z
      .record(
        instanceRef,
        z.union([
          z.boolean().meta({
            description:
              "true: the instance's default tools (mcp: every allowed tool; others: their read methods); false: nothing.",
          }),
          z.array(z.string().min(1)).meta({
            description:
              "Exactly these contract methods become tools (not for mcp instances: use allowed_tools). Opts in to methods that write or deliver.",
          }),
        ]),
      )
      .default({})
      .meta({
        description:
          'Per instance ("section/name"): what the gateway exposes. Unlisted instances get the default: an mcp connector\'s tools (after allowed_tools) and the read methods of memory (query, get), skill (get, list) and agent (list_agents, agent_status) instances; nothing that writes or delivers.',
        ...COMMENTS,
      }),
    pinning: z
      .union([
        pinningMode,
        z.record(z.union([z.literal("default"), instanceRef]), pinningMode).meta({
          description:
            'Per instance ("section/name"), with "default" for the rest: e.g. { "default": "enforce", "mcpConnectors/dev": "warn" }.',
        }),
      ])
      .default("enforce")
      .meta({
        description:
          "Tool, prompt and resource template definitions held to connectors.lock.json (written on the first serve): enforce (a changed or new definition is withheld until `patchbay pins accept`), warn (served, flagged), off.",
      }),
    clients: clientsSchema(instanceRef),
    oauth: oauthSchema(instanceRef),
    state: stateSchema,
    audit: auditSchema,
  })
  .default({ expose: {}, pinning: "enforce", clients: {} })
  .meta({
    description:
      "The MCP gateway of `patchbay serve --mcp` / `--http`: which instances' methods AI clients see as tools.",
    ...COMMENTS,
  });

export const ConnectorsFileSchema = z
  .strictObject({
    $schema: z.string().optional().meta({ description: "Path or URL of this JSON Schema, for editors." }),
    plugins: z
      .array(z.string().min(1))
      .default([...DEFAULT_PLUGIN_DIRS])
      .meta({
        description:
          "Plugin folders to scan, in order, relative to this file. The bundled plugins are always found after them.",
      }),
    defaults: DefaultsSchema,
    trust: z.array(pluginName).default([]).meta({
      description:
        'Plugins the operator trusts to run as threads inside the host. `patchbay doctor` warns when a plugin that is neither bundled nor listed here runs as a thread next to instances holding secrets; untrusted plugins belong in "isolation": "sandbox" (docs/isolation.md).',
    }),
    memoryStores: sectionSchema("memoryStores"),
    localModels: sectionSchema("localModels"),
    mcpConnectors: sectionSchema("mcpConnectors"),
    agentConnectors: sectionSchema("agentConnectors"),
    skillStores: sectionSchema("skillStores"),
    adapters: sectionSchema("adapters"),
    gateway: GatewaySchema,
  })
  .meta({
    title: "Patchbay connectors.json",
    description:
      "Names the plugin instances Patchbay loads. Keys starting with _ are comments (except inside config and identity).",
    ...COMMENTS,
  });

export type ConnectorsFileInput = z.input<typeof ConnectorsFileSchema>;
export type ConnectorsFile = z.output<typeof ConnectorsFileSchema>;
export type InstanceEntry = Exclude<ConnectorsFile[Section][string], string>;

const TOP_KEYS = Object.keys(ConnectorsFileSchema.shape);
const DEFAULTS_KEYS = Object.keys(DEFAULTS);
const INSTANCE_KEYS = Object.keys({ ...commonFields, ...trailingFields });
const MCP_INSTANCE_KEYS = Object.keys({ ...commonFields, ...mcpFields, ...trailingFields });

/**
 * The keys a strict object accepts at `path` (as zod reports paths): the candidates for
 * "did you mean". Empty where the path is not a strict object.
 */
export function allowedKeysAt(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return TOP_KEYS;
  if (path.length === 1 && path[0] === "defaults") return DEFAULTS_KEYS;
  if (path.length === 1 && path[0] === "gateway") return ["expose", "pinning", "clients", "oauth", "state", "audit"];
  if (path.length === 2 && (SECTIONS as readonly PropertyKey[]).includes(path[0])) {
    return path[0] === "mcpConnectors" ? MCP_INSTANCE_KEYS : INSTANCE_KEYS;
  }
  return [];
}
