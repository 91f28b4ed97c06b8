/**
 * Health that follows the substrate between health checks: a call that finds the substrate down
 * (PB_ERR_SUBSTRATE_UNAVAILABLE) turns a ready instance "degraded" with that error, so
 * host.capabilities(), status and doctor stop saying "ready" while the database is stopped; the
 * next call that succeeds turns it ready again. Crashes, timeouts and plugin bugs do not count:
 * they have their own handling (restart, deadline) and say nothing about the substrate.
 */
import { toWire } from "../errors.js";
import type { InstanceEntry } from "./registry.js";

const DOWN = "PB_ERR_SUBSTRATE_UNAVAILABLE";

/** One `then`, not an async wrapper: it sits on every call's path, and each await layer costs a tick. */
export function watchSubstrate<T>(entry: InstanceEntry, call: Promise<T>): Promise<T> {
  return call.then(
    (value) => {
      if (entry.state === "degraded" && entry.error?.code === DOWN) {
        entry.state = "ready";
        entry.error = null;
      }
      return value;
    },
    (err: unknown) => {
      if (
        (err as { code?: unknown } | null)?.code === DOWN &&
        (entry.state === "ready" || entry.state === "degraded")
      ) {
        entry.state = "degraded";
        entry.error = toWire(err);
      }
      throw err;
    },
  );
}
