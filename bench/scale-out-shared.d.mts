// Types of bench/scale-out-shared.mjs for the TypeScript test that drives it.
import type { Cluster } from "./scale-out.mjs";

export const READ_TOOL: string;
export const NOTIFY_DEADLINE_MS: number;
export function uriOf(name: string): string;
export interface SharedCluster extends Cluster {
  /** The folder every replica's fixture server watches. */
  watchedDir: string;
  /** The tokens of the gateway clients `a` and `b`. */
  clientTokens: { a: string; b: string };
}
export interface SharedKillRunResult {
  run: string;
  acked: number;
  ackedAtKill: number;
  afterKill: number;
  rows: number;
  distinct: number;
  duplicates: number;
  lost: string[];
  attempts: number;
  failures: number;
  timeouts: number;
  /** Sessions opened past each client's first: after a 404, the run opens one so it can finish. */
  reinitializations: number;
  /** Replies with HTTP 404, on any request (calls, GET stream reconnections). */
  notFound: number;
  clients: number;
  /** Clients that got notifications/resources/updated for their URI after their file changed. */
  notified: number;
  /** The clients never told of their file's change: their URI, updates (ms after the kill), statuses, errors. */
  missed: { uri: string; updatesMs: number[]; statuses: Record<string, number>; errors: Record<string, number> }[];
  takeoverUpdates: number;
  longestNotifyMs: number;
  longestAttemptMs: number;
  longestWriteMs: number;
  errors: Record<string, number>;
  statuses: Record<string, number>;
  clientErrors: Record<string, number>;
}
export function startSharedCluster(opts: {
  pgUrl: string;
  haproxy: string;
  mode?: "shared" | "stateless";
  n?: number;
}): Promise<SharedCluster>;
export function sharedKillRun(
  cluster: SharedCluster,
  opts: {
    pgUrl: string;
    run: string;
    clients?: number;
    perClient?: number;
    killAfter?: number;
    victim?: number;
    changeAfterMs?: number;
  },
): Promise<SharedKillRunResult>;
export function seqFigure(opts: {
  pgUrl: string;
  haproxy: string;
  rounds?: number;
  calls?: number;
}): Promise<{ stateless: number; shared: number }>;
