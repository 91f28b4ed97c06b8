/**
 * The adapter kind's contract: the capability table (14 booleans in four groups, each with the
 * methods that back it), the closed normalized event, and the zod schemas of every value that
 * crosses the boundary between the hook runner/installer and an adapter worker. A leaf: zod only.
 */
import { z } from "zod";
import { METHODS } from "../contract/kinds.js";
import { EVENT_KEYS, EVENT_KINDS, type EventKind } from "./event-kinds.js";

/**
 * Capability → the methods a `true` needs. The first is the backing method; `denyOutcome` and
 * `injectOutcome` are listed too, because without them a guard would silently allow and a context
 * capability would silently drop its text (the reference system let both happen).
 */
export const ADAPTER_CAPABILITIES = Object.freeze({
  lifecycle: {
    sessionStart: ["startSession"],
    sessionResume: ["resumeSession"],
    sessionEnd: ["endSession"],
    heartbeat: ["heartbeat"],
    childSessions: ["mapChildSession"],
  },
  context: {
    startupInjection: ["renderContext", "injectOutcome"],
    beforeTurnInjection: ["renderContext", "injectOutcome"],
    safePointInjection: ["renderContext", "injectOutcome"],
  },
  guards: {
    beforeRead: ["guardRead", "denyOutcome"],
    beforeWrite: ["guardWrite", "denyOutcome"],
    beforeShell: ["guardShell", "denyOutcome"],
  },
  delivery: {
    nextTurn: ["renderContext", "injectOutcome"],
    livePush: ["offerMessage"],
    replyRoute: ["routeReply"],
  },
} as const);

export type CapabilityGroup = keyof typeof ADAPTER_CAPABILITIES;
export type CapabilityShape = {
  readonly [G in CapabilityGroup]: { readonly [C in keyof (typeof ADAPTER_CAPABILITIES)[G]]: boolean };
};
/** Declared capabilities: any subset, every omitted entry is false. */
export type CapabilityDeclaration = {
  [G in CapabilityGroup]?: { [C in keyof (typeof ADAPTER_CAPABILITIES)[G]]?: boolean };
};

export const CAPABILITY_GROUPS = Object.keys(ADAPTER_CAPABILITIES) as CapabilityGroup[];

/** "guards.beforeWrite" for every capability, in table order. */
export const CAPABILITY_KEYS: readonly string[] = Object.freeze(
  CAPABILITY_GROUPS.flatMap((g) => Object.keys(ADAPTER_CAPABILITIES[g]).map((c) => `${g}.${c}`)),
);

export function capabilityRequires(key: string): readonly string[] {
  const [g, c] = key.split(".");
  return (ADAPTER_CAPABILITIES as Record<string, Record<string, readonly string[]>>)[g]?.[c] ?? [];
}

/** The methods every adapter implements, and the ones it may (each listed in plugin.json "capabilities"). */
export const ADAPTER_REQUIRED_METHODS: readonly string[] = METHODS.adapter.required;
export const ADAPTER_OPTIONAL_METHODS: readonly string[] = METHODS.adapter.optional;

// --- the normalized event ---

export { EVENT_KEYS, EVENT_KINDS, type EventKind };

const text = z.string().min(1).max(4096);

export const NormalizedEventSchema = z.strictObject({
  kind: z.enum(EVENT_KINDS),
  sessionId: text,
  cwd: text,
  model: text.nullable(),
  parentSessionId: text.nullable(),
  /** The client's id of the subagent that made this call (Claude Code's agent_id), else null. */
  agentId: text.nullable(),
  tool: text.nullable(),
  /** Paths this call would write; never guessed from a shell command. */
  targets: z.array(text).max(256),
});
export type NormalizedEvent = Readonly<
  Omit<z.output<typeof NormalizedEventSchema>, "targets"> & { targets: readonly string[] }
>;

// --- outcomes and rendering ---

export const HookOutcomeSchema = z.strictObject({
  stdout: z.string(),
  stderr: z.string(),
  exitCode: z.number().int().min(0).max(255),
});
export type HookOutcome = z.output<typeof HookOutcomeSchema>;

export const GuardDecisionSchema = z.strictObject({
  decision: z.enum(["allow", "deny"]),
  reason: z.string().optional(),
});
export type GuardDecision = z.output<typeof GuardDecisionSchema>;

/** One message from a peer, as recorded by an inbox; every text field is untrusted. */
export const PeerMessageSchema = z.strictObject({
  id: text,
  from: z.string(),
  type: z.string(),
  subject: z.string().nullable(),
  body: z.string(),
  sentAt: z.number(),
});
export type PeerMessage = z.output<typeof PeerMessageSchema>;

export const RenderInputSchema = z.strictObject({ messages: z.array(PeerMessageSchema) });
export const RenderOptionsSchema = z.strictObject({
  budgetBytes: z.number().int().min(1).max(64_000),
  /** How a reader gets a message that was over budget, e.g. "patchbay adapter inbox claude-code --message". */
  readCommand: z.string().optional(),
});
export const RenderResultSchema = z.strictObject({ text: z.string(), includedMessageIds: z.array(z.string()) });
export type RenderInput = z.output<typeof RenderInputSchema>;
export type RenderOptions = z.output<typeof RenderOptionsSchema>;
export type RenderResult = z.output<typeof RenderResultSchema>;

// --- detection, doctor, install ---

export const DiagnosticSchema = z.strictObject({
  level: z.enum(["info", "warn", "error"]),
  code: z.string(),
  message: z.string(),
});
export type Diagnostic = z.output<typeof DiagnosticSchema>;

/** What the host saw when it ran `client.command client.versionArgs` (workers have no PATH). */
export const ClientProbeSchema = z.strictObject({
  command: z.string(),
  present: z.boolean(),
  path: z.string().nullable(),
  output: z.string(),
  exitCode: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type ClientProbe = z.output<typeof ClientProbeSchema>;

export const DetectResultSchema = z.strictObject({
  ok: z.boolean(),
  present: z.boolean(),
  version: z.string().nullable(),
  diagnostics: z.array(DiagnosticSchema),
});
export type DetectResult = z.output<typeof DetectResultSchema>;

export const DoctorResultSchema = z.strictObject({ ok: z.boolean(), diagnostics: z.array(DiagnosticSchema) });
export type DoctorResult = z.output<typeof DoctorResultSchema>;

const absolute = z.string().refine((p) => p.startsWith("/"), "must be an absolute path");

/** Where an adapter may read and write: given by the host, never guessed by the adapter. */
export const AdapterEnvSchema = z.strictObject({
  instance: z.string(),
  home: absolute,
  projectDir: absolute,
  stateDir: absolute,
  platform: z.string(),
  /** The absolute, shell-quoted command that runs `patchbay hook <instance>`; append the event word. */
  hookCommand: z.string(),
  client: z.strictObject({ present: z.boolean(), path: z.string().nullable(), version: z.string().nullable() }),
});
export type AdapterEnv = z.output<typeof AdapterEnvSchema>;

const relPath = z
  .string()
  .min(1)
  .refine(
    (p) => !p.startsWith("/") && !p.split("/").some((s) => s === ".." || s === "." || s === ""),
    "must be a relative path without '.', '..' or empty segments",
  );

export const TreeArtifactSchema = z.strictObject({
  kind: z.literal("tree"),
  path: absolute,
  files: z.array(z.strictObject({ path: relPath, content: z.string(), mode: z.number().int().optional() })).min(1),
});
export const FileArtifactSchema = z.strictObject({
  kind: z.literal("file"),
  path: absolute,
  content: z.string(),
  mode: z.number().int().optional(),
});
/** A JSON file the user owns: Patchbay appends entries to arrays inside it, never deletes it. */
export const MergeArtifactSchema = z.strictObject({
  kind: z.literal("merge"),
  path: absolute,
  format: z.literal("json"),
  entries: z.array(z.strictObject({ at: z.array(z.string().min(1)).min(1), append: z.unknown() })).min(1),
});
export const ArtifactSchema = z.discriminatedUnion("kind", [
  TreeArtifactSchema,
  FileArtifactSchema,
  MergeArtifactSchema,
]);
export type Artifact = z.output<typeof ArtifactSchema>;

/**
 * Said when the client will not run the installed hooks yet (it waits for the user's consent, say):
 * install prints `reason` and the exact `step`, in its human and JSON output, so a silent client is
 * never mistaken for a working one.
 */
export const InactiveSchema = z.strictObject({ reason: z.string().min(1), step: z.string().min(1) });
export type Inactive = z.output<typeof InactiveSchema>;

export const InstallPlanSchema = z.strictObject({
  artifacts: z.array(ArtifactSchema),
  notes: z.array(z.string()).optional(),
  inactive: InactiveSchema.optional(),
});
export type InstallPlan = z.output<typeof InstallPlanSchema>;

/**
 * What an adapter's optional trustHooks() returns (`adapter install --trust-hooks`): the client's
 * ids of the trust records it wrote (uninstall hands them back to untrustHooks()) and of the
 * installed hooks the client already trusted.
 */
export const TrustResultSchema = z.strictObject({
  trusted: z.array(z.string().min(1).max(4096)).max(1000),
  already: z.array(z.string().min(1).max(4096)).max(1000),
});
export type TrustResult = z.output<typeof TrustResultSchema>;

// --- the manifest, as manifest() returns it ---

const booleanGroup = (g: CapabilityGroup) =>
  z.strictObject(
    Object.fromEntries(Object.keys(ADAPTER_CAPABILITIES[g]).map((c) => [c, z.boolean()])) as Record<
      string,
      z.ZodBoolean
    >,
  );

export const CapabilityShapeSchema = z.strictObject({
  lifecycle: booleanGroup("lifecycle"),
  context: booleanGroup("context"),
  guards: booleanGroup("guards"),
  delivery: booleanGroup("delivery"),
});

export const AdapterManifestSchema = z.strictObject({
  id: z.string(),
  displayName: z.string(),
  client: z.strictObject({
    command: z.string(),
    versionArgs: z.array(z.string()),
    certificationName: z.string(),
    packageName: z.string().optional(),
  }),
  capabilities: CapabilityShapeSchema,
  fastHook: relPath.optional(),
  certifyDriver: relPath.optional(),
});
export type AdapterManifest = Readonly<{
  id: string;
  displayName: string;
  client: Readonly<{
    command: string;
    versionArgs: readonly string[];
    certificationName: string;
    packageName?: string;
  }>;
  capabilities: CapabilityShape;
  fastHook?: string;
  certifyDriver?: string;
}>;

// --- certification.json ---

export const EvidenceSchema = z.strictObject({
  client: z.string().min(1),
  version: z.string().min(1),
  platform: z.string().min(1),
  observedAt: z.string().min(1),
  capability: z.string().refine((k) => CAPABILITY_KEYS.includes(k), "must be a capability such as guards.beforeWrite"),
  fixture: relPath,
  /** sha256 of the capture file's bytes; a passing entry without it, or with another hash, does not count. */
  sha256: z
    .string()
    .regex(/^([0-9a-f]{64})?$/)
    .optional(),
  /** The client's hook events the capture holds (e.g. ["PreToolUse"]). */
  events: z.array(z.string().min(1).max(100)).max(64).optional(),
  result: z.enum(["pass", "fail"]),
  notes: z.string().optional(),
});
export const CertificationSchema = z.strictObject({
  $schema: z.string().optional(),
  schemaVersion: z.literal(1),
  adapter: z.string().min(1),
  evidence: z.array(EvidenceSchema),
});
export type Evidence = z.output<typeof EvidenceSchema>;
export type Certification = z.output<typeof CertificationSchema>;
