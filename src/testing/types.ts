/**
 * The shapes of `patchbay/testing`: what a kit is given (ConformanceOptions), what a claim is,
 * and what running one reports. Kept apart from the runner so kits and callers share one source.
 */
import type { Host, InstanceReport } from "../host/api.js";
import type { Manifest } from "../contract/manifest.js";

/** The kinds that have a conformance kit (adapters have their own certification). */
export type KitKind = "memory-store" | "local-model" | "mcp" | "agent" | "skill-store";

export const KIT_KINDS: readonly KitKind[] = Object.freeze([
  "memory-store",
  "local-model",
  "mcp",
  "agent",
  "skill-store",
]);

export interface ConformanceOptions {
  /**
   * The plugin under test: a folder holding plugin.json (absolute, or relative to the working
   * folder), or a plugin name, looked up in the `connectors` file's plugin folders and the bundled
   * plugins, exactly as the host looks it up.
   */
  plugin: string;
  /**
   * A connectors.json: its "plugins" folders are searched for `plugin` by name, relative paths in
   * the configs resolve against its folder, and when `config` is omitted the first instance of the
   * plugin in it gives the valid config.
   */
  connectors?: string;
  /** A config the plugin's schema accepts and whose substrate is up: health_check must be true. */
  config?: Record<string, unknown>;
  /**
   * Airbyte's rule: a config the plugin's schema accepts but whose substrate is wrong (a port
   * nothing listens on, a folder that cannot be created): health_check must answer false within
   * its timeout, never hang or throw. `null` only for a plugin with no substrate to break (say why
   * in `invalidConfigReason`); that claim is then reported skipped.
   */
  invalidConfig: Record<string, unknown> | null;
  invalidConfigReason?: string;
  /** Folder relative config paths resolve against. Default: the connectors file's folder, else a fresh temp folder. */
  dir?: string;
  /**
   * Environment for `${VAR}` in the configs. Default: process.env. The kit adds PATCHBAY_PLUGIN_DIR, the
   * plugin's folder.
   */
  env?: Record<string, string | undefined>;
  /** Per-call deadline of the kit's instance. @default 10000 */
  timeoutMs?: number;
  /** health_check deadline. @default 5000 */
  healthTimeoutMs?: number;
  /** Skip every claim, printing this reason (e.g. "PATCHBAY_TEST_PG_URL is not set"). */
  skip?: string | false;

  /**
   * mcp: `call` must succeed (the kit's narrow instance allows only this tool); `errorCall` must
   * make the tool report isError.
   */
  mcp?: { call: ToolCall; errorCall?: ToolCall };
  /** agent: the agent to deliver to. Default: the first agent list_agents() returns. */
  agent?: { agentId?: string };
  /** local-model: the prompt (default "Say hello.") and model (default: the instance's) run() is asked with. */
  localModel?: { prompt?: string; model?: string };
}

export interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
}

/** What a claim sees: the host booted with the valid config, and helpers bound to the kit's instance. */
export interface KitContext {
  readonly kind: KitKind;
  readonly host: Host;
  /** "memoryStores/kit" */
  readonly id: string;
  readonly manifest: Manifest;
  readonly report: InstanceReport;
  readonly opts: ConformanceOptions;
  /** Calls the kit's instance through the host (and so through the guard). */
  call<T = unknown>(method: string, ...args: unknown[]): Promise<T>;
  /** health_check of the instance booted with `invalidConfig` (booted on first use). */
  invalidHealth(): Promise<InvalidHealth>;
  /** A token unique to this run, for records a claim writes and then looks for. */
  readonly token: string;
}

export type InvalidHealth =
  | { outcome: "false"; ms: number }
  | { outcome: "true" | "threw" | "hung" | "not-started"; ms: number; detail: string };

export interface Claim {
  /** One line, stable: it names the vitest test and the `patchbay plugin test` row. */
  name: string;
  /** A reason to skip the claim for this plugin (e.g. an optional method it does not declare), or null. */
  skip?(kit: KitContext): string | null;
  /** Throws (with a message that says what to fix) when the plugin breaks the claim. */
  run(kit: KitContext): Promise<void>;
}

export interface ClaimResult {
  claim: string;
  ok: boolean;
  /** Why it failed, or why it was skipped; null when it passed. */
  reason: string | null;
  skipped?: boolean;
  ms: number;
}
