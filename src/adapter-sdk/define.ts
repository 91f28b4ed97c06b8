/**
 * What an adapter definition is: the config keys every adapter instance accepts, the methods an
 * adapter's create() returns, and the definition an author hands defineAdapter() (define-adapter.ts).
 * Apart from defineAdapter() because its checks (validate.ts) read these types too, and
 * defineAdapter() calls the checks: the three files import in one direction only.
 *
 * This lives in adapter-sdk/ (a leaf) because `patchbay/adapter` exports it to plugin workers.
 */
import { z } from "zod";
import type { PluginContext } from "../plugin.js";
import type {
  AdapterEnv,
  AdapterManifest,
  CapabilityDeclaration,
  ClientProbe,
  DetectResult,
  DoctorResult,
  GuardDecision,
  HookOutcome,
  InstallPlan,
  TrustResult,
  NormalizedEvent,
  PeerMessage,
  RenderInput,
  RenderOptions,
  RenderResult,
} from "./contract.js";

/**
 * Config keys every adapter instance accepts, whatever its own schema: the hook runner reads
 * them (on its side, from connectors.json) and the adapter gets them in create()'s config.
 */
export const STANDARD_ADAPTER_CONFIG = {
  hook_timeout_ms: z.number().int().min(100).max(60_000).default(5_000).meta({
    description:
      "Bound of one whole `patchbay hook` run (parse, load, normalize, decide, render), in ms. On expiry the hook fails open.",
  }),
  context_budget_bytes: z
    .number()
    .int()
    .min(1)
    .max(64_000)
    .default(6_000)
    .meta({ description: "Most bytes of context (peer messages) one hook may inject." }),
  inbox: z
    .string()
    .regex(
      /^agentConnectors\/[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/,
      'must be "agentConnectors/<name>" of an adapter-inbox instance',
    )
    .optional()
    .meta({ description: "The adapter-inbox instance whose messages this client receives on its next turn." }),
  recipient: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "The agent id (in the inbox) this client reads; default the adapter instance's name." }),
  protect: z
    .array(z.string().min(1).meta({ path: true }))
    .default([])
    .meta({
      description:
        "Paths (relative to connectors.json) a guarded client may not write; enforced only where guards.beforeWrite is certified.",
    }),
};

/** The host-side view of those keys, read straight from connectors.json (unknown keys pass). */
export const StandardAdapterConfigSchema = z.looseObject(STANDARD_ADAPTER_CONFIG);
export type StandardAdapterConfig = z.output<typeof StandardAdapterConfigSchema>;

type Awaitable<T> = T | Promise<T>;

/** The methods an adapter's create() returns. All values crossing the boundary are plain data. */
export interface AdapterMethods {
  health_check?(): Promise<boolean>;
  /** Interpret the host's probe of the client binary (workers have no PATH to run it themselves). */
  detect(probe: ClientProbe, env: AdapterEnv): Awaitable<DetectResult>;
  /** Read-only checks of the client's wiring; must change nothing. */
  doctor(env: AdapterEnv): Awaitable<DoctorResult>;
  /** Whitelist a client payload into normalizedEvent(...); throw for anything unrecognised. */
  normalizeHook(payload: unknown, opts: { event: string | null }): Awaitable<NormalizedEvent>;
  /** Peer messages → text within budget, plus the ids of the messages rendered whole. */
  renderContext(input: RenderInput, opts: RenderOptions): Awaitable<RenderResult>;
  /** What install writes: tree / file / merge artifacts, with absolute paths from `env`. */
  planInstall(env: AdapterEnv): Awaitable<InstallPlan>;
  /**
   * Optional, only on `adapter install --trust-hooks`: records the client's consent to run the hooks
   * install just wrote, through the client's own tooling, for those hooks only. Returns the ids of
   * the records written, which uninstall hands back to untrustHooks().
   */
  trustHooks?(env: AdapterEnv): Awaitable<TrustResult>;
  /** Removes the trust records trustHooks() wrote (their ids); returns the ids removed. */
  untrustHooks?(env: AdapterEnv, keys: string[]): Awaitable<string[]>;
  denyOutcome?(reason: string, event?: NormalizedEvent | null): Awaitable<HookOutcome>;
  injectOutcome?(text: string, event?: NormalizedEvent | null): Awaitable<HookOutcome>;
  guardRead?(event: NormalizedEvent): Awaitable<GuardDecision>;
  guardWrite?(event: NormalizedEvent): Awaitable<GuardDecision>;
  guardShell?(event: NormalizedEvent): Awaitable<GuardDecision>;
  startSession?(event: NormalizedEvent): Awaitable<unknown>;
  resumeSession?(event: NormalizedEvent): Awaitable<unknown>;
  endSession?(event: NormalizedEvent): Awaitable<unknown>;
  heartbeat?(event: NormalizedEvent): Awaitable<unknown>;
  mapChildSession?(event: NormalizedEvent): Awaitable<unknown>;
  offerMessage?(message: PeerMessage): Awaitable<unknown>;
  routeReply?(message: PeerMessage): Awaitable<unknown>;
  close?(): Promise<void>;
}

export interface AdapterDefinition<S extends z.ZodObject = z.ZodObject> {
  /** Portable id: letters, digits, '.', '_', '-'. */
  id: string;
  displayName: string;
  /**
   * `packageName`: the npm package the client is installed from, when it is one. Then the host
   * reads the version from that package's package.json next to the resolved binary instead of
   * running `command versionArgs` (a client's --version can write files of its own, and a dry run
   * must write nothing); probe output is then the bare version.
   */
  client: { command: string; versionArgs?: string[]; certificationName?: string; packageName?: string };
  capabilities?: CapabilityDeclaration;
  /**
   * Optional: a module of the plugin folder (relative path, e.g. "src/hooks.ts") the fast hook
   * path loads in-process, without a worker, zod or jiti: it exports `normalizeHook(payload, event)`,
   * `denyOutcome(reason, event)` and, for guards.beforeWrite, `guardWrite(event, protect)`, and
   * imports nothing but `patchbay/adapter` (its zod-free part) and node builtins (docs/adapters.md).
   */
  fastHook?: string;
  /**
   * Optional: a module of the plugin folder (e.g. "src/certify.ts") exporting `driver`, a
   * CertifyDriver: how `patchbay adapter certify` runs the real client offline. Node builtins only.
   */
  certifyDriver?: string;
  /** The adapter's own config keys (a z.object); the standard keys are added to it. */
  config?: S;
  create(config: z.output<S> & StandardAdapterConfig, ctx: PluginContext): Awaitable<AdapterMethods>;
}

/** What create() hands the host: the author's methods plus manifest(). */
export type AdapterInstance = AdapterMethods & { health_check(): Promise<boolean>; manifest(): AdapterManifest };

export interface DefinedAdapter<S extends z.ZodObject = z.ZodObject> {
  readonly kind: "adapter";
  readonly config: z.ZodType<z.output<S> & StandardAdapterConfig>;
  create(config: unknown, ctx: PluginContext): Promise<AdapterInstance>;
  readonly definition: Readonly<AdapterDefinition<S>>;
}
