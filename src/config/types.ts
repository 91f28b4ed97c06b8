/**
 * The resolved config: what every later stage (discovery, spawn, registry, cli) reads. It is
 * produced once by loadConfig, validated, and deeply frozen, so no stage can change what
 * another stage sees.
 */
import type { Section } from "../contract/kinds.js";
import type { WireError } from "../errors.js";

export interface LoadConfigOptions {
  /** A path to connectors.json, or an already-parsed object (then `dir` is its base folder, default cwd). */
  config?: string | Record<string, unknown>;
  /** Base folder for relative paths when `config` is an object; ignored for a file (its own folder is used). */
  dir?: string;
  /** Default process.cwd(). */
  cwd?: string;
  /** Default process.env. */
  env?: Record<string, string | undefined>;
  /**
   * A problem inside one instance's entry (an unset ${VAR}, a bad key) blocks only that instance:
   * it is listed in `blocked` with its error instead of failing the load. The host, list and
   * doctor load this way; the default fails on any problem.
   */
  scoped?: boolean;
}

export type PinningMode = "enforce" | "warn" | "off";

export interface ResolvedPinning {
  default: PinningMode;
  /** "section/name" → its own mode. */
  instances: Record<string, PinningMode>;
}

/** What one caller of the gateway may see and call (gateway.clients, gateway.oauth.clients). */
export interface ClientPolicySpec {
  id: string;
  /** "/gateway/clients/<id>" or "/gateway/oauth/clients/<id>": where errors about it point. */
  pointer: string;
  /** Per instance, as gateway.expose; for an mcp instance a list names tools or globs. Unlisted: not visible. */
  expose: Record<string, boolean | string[]>;
  limits: { callsPerMinute: number | null; concurrent: number | null };
  /** May read GET /metrics. */
  metrics: boolean;
}

export interface ResolvedStaticClient extends ClientPolicySpec {
  /** SHA-256 of the bearer token, hex: the token itself is not kept. */
  tokenSha256: string;
}

export interface ResolvedOAuthClient extends ClientPolicySpec {
  match: { claim: "sub" | "client_id" | "azp" | "scope"; value: string };
}

export interface ResolvedOAuth {
  issuer: string;
  audience: string;
  jwksUri: string | null;
  algorithms: string[];
  clients: ResolvedOAuthClient[];
}

export interface ResolvedGateway {
  expose: Record<string, boolean | string[]>;
  pinning: ResolvedPinning;
  clients: ResolvedStaticClient[];
  oauth: ResolvedOAuth | null;
  /** Shared gateway state (quotas, audit); null: in memory per process. */
  state: { postgres: string } | null;
  /** The audit trail's rotation: past maxBytes audit.log becomes audit.log.1, `keep` files kept. */
  audit: { maxBytes: number; keep: number };
}

export interface ResolvedInstance {
  /** "memoryStores/primary" */
  id: string;
  section: Section;
  name: string;
  /** "/memoryStores/primary" */
  pointer: string;
  plugin: string;
  required: boolean;
  /** The instance's value, else defaults. */
  timeoutMs: number;
  healthTimeoutMs: number;
  maxMemoryMb: number;
  /** How often `serve` re-runs health_check. */
  healthIntervalMs: number;
  /**
   * "process": a child process under Node's permission model instead of a worker thread; "host": a
   * bundled plugin on the host's own thread.
   */
  isolation: "thread" | "process" | "sandbox" | "host";
  /** Group mode: the name of the shared worker thread, or null for a thread of its own. */
  worker: string | null;
  /** null = every tool (mcpConnectors only; always null elsewhere). */
  allowedTools: string[] | null;
  identity: Record<string, unknown> | null;
  /** "section/name" references, as written (they may name aliases; see ResolvedConfig.aliases). */
  grants: string[];
  /** After ${VAR} resolution; `_` keys are kept, they belong to the plugin. */
  config: Record<string, unknown>;
}

export interface ResolvedConfig {
  /** Absolute path; null when given an object. */
  file: string | null;
  /** The folder relative paths resolve against. */
  dir: string;
  /** Absolute, in order, duplicates removed. */
  pluginDirs: string[];
  /**
   * Whether the file names "plugins" itself: a missing folder the user named is worth a warning,
   * the default is not.
   */
  pluginDirsDeclared: boolean;
  defaults: { timeoutMs: number; healthTimeoutMs: number; maxMemoryMb: number; healthIntervalMs: number };
  /**
   * The gateway section: per instance, true/false or the exact methods exposed; how definitions are held
   * to connectors.lock.json (`pinning.default`, and per instance); its callers and shared state.
   */
  gateway: ResolvedGateway;
  /** In file order within a section, sections in SECTIONS order. Aliases are not instances. */
  instances: ResolvedInstance[];
  /** "localModels/default" → "localModels/gemma2": always the final instance. */
  aliases: Record<string, string>;
  /** Every value that came from ${VAR}: scrub these from all output. */
  secrets: string[];
  /** Plugin names the operator marked trusted ("trust"); doctor's thread warning skips them. */
  trust: string[];
  /**
   * With `scoped`: instance id → why it cannot start (its own config problems). Such an instance is
   * in `instances` as a stand-in.
   */
  blocked: Record<string, WireError>;
}
