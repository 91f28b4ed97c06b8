/**
 * What createHost() takes. Apart from host.ts because the instance start (start.ts) reads these
 * options too, and host.ts calls start.ts: one of them holding the type would tie the two together.
 */
import type { DestinationStream } from "pino";
import type { WireError } from "../errors.js";
import type { Host } from "./api.js";

export interface CreateHostOptions {
  /**
   * Path of connectors.json, or an already-parsed object. Default: PATCHBAY_CONFIG, then
   * connectors.json from cwd upwards.
   */
  config?: string | Record<string, unknown>;
  /** Base folder for an object config. */
  dir?: string;
  cwd?: string;
  env?: Record<string, string | undefined>;
  logLevel?: string;
  logDestination?: DestinationStream;
  /** Human-readable log lines instead of JSON. */
  prettyLogs?: boolean;
  /** Boot only these instances ("section/name") and the instances they are granted. */
  only?: string[];
  /** Never throw for failed instances: return the host with every failure in its report (doctor). */
  collect?: boolean;
  /** How long a cancelled call may run on before its worker is terminated. @default 2000 */
  graceMs?: number;
  /** @default 30000 */
  startTimeoutMs?: number;
  /** Hears each instance as its boot ends (ready, or failed to start or to pass its health check), in that order. */
  onProgress?: (instance: { id: string; state: string; healthMs: number | null; error: WireError | null }) => void;
  /**
   * Hears the host as soon as it exists, before any instance starts (`serve` opens its transports
   * then, so a client is answered while the instances boot). Its instances are "stopped" until
   * their boot ends; createHost still resolves only after the boot.
   */
  onCreated?: (host: Host) => void;
}
