/**
 * The status document: what `patchbay status`, `GET /status`, the status page and the metrics read of a
 * running serve. A module of its own so those readers need not import serve.ts (which imports them).
 */
import type { Host } from "../host/api.js";
import type { PinsStatus } from "./pins/report.js";
import type { CallStats } from "./stats.js";

export interface StatusDocument {
  pid: number;
  configFile: string | null;
  startedAt: number;
  transports: { mcp: boolean; http: string | null };
  /** The HTTP transport's mode and sessions (null without --http). */
  httpSessions: { mode: "stateful" | "stateless" | "shared"; open: number; evicted: number } | null;
  /** The instances are still booting (each not yet ready shows state "booting"). */
  booting: boolean;
  tools: number;
  /** Definitions held to connectors.lock.json: the mode, the lock, and what differs from it. */
  pins: PinsStatus;
  instances: (ReturnType<Host["liveStatus"]>[number] & CallStats)[];
}
