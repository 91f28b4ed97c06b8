/**
 * The refusals a QuotaStore answers with, worded once so the in-memory and the PostgreSQL stores
 * say the same thing: which limit, whose, and how long to wait.
 */
import type { Admission } from "./gate.js";

/**
 * Nobody knows when a call in flight ends; a client past its concurrent calls is told to retry
 * soon rather than the lease lifetime, which would make it wait for nothing in the usual case.
 */
const CONCURRENT_RETRY_MS = 1_000;

/** The wait suggested when PostgreSQL is out of reach: long enough not to hammer it. */
const STATE_RETRY_MS = 2_000;

export function pastRate(client: string, limit: number, waitMs: number): Admission {
  return {
    ok: false,
    code: "PB_ERR_CLIENT_QUOTA",
    message: `Client "${client}" is past its quota of ${limit} calls per minute (its limits.callsPerMinute in connectors.json); retry in ${seconds(waitMs)}.`,
    retryAfterMs: waitMs,
  };
}

export function pastConcurrent(client: string, limit: number): Admission {
  return {
    ok: false,
    code: "PB_ERR_CLIENT_QUOTA",
    message: `Client "${client}" already has ${limit} calls in flight, its limit (limits.concurrent in connectors.json); retry when one of them ends, in about ${seconds(CONCURRENT_RETRY_MS)}.`,
    retryAfterMs: CONCURRENT_RETRY_MS,
  };
}

/** `why` must not carry the connection string: callers pass a scrubbed reason (state/postgres.ts). */
export function stateUnavailable(client: string, why: string): Admission {
  return {
    ok: false,
    code: "PB_ERR_STATE_UNAVAILABLE",
    message: `Client "${client}": the call was refused because the shared gateway state (gateway.state.postgres) could not be reached to count it (${why}).`,
    retryAfterMs: STATE_RETRY_MS,
  };
}

const seconds = (ms: number): string => `${(Math.ceil(ms / 100) / 10).toFixed(1)} s`;
