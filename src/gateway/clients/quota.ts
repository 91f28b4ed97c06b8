/**
 * Which QuotaStore a serve uses: with gateway.state.postgres the one shared by replicas (the
 * database opened and its table prepared before anything listens, so a serve that cannot count
 * refuses to start), else the one in this process.
 */
import type { QuotaStore } from "./gate.js";
import { MemoryQuotaStore } from "./quota-memory.js";

export interface Quotas {
  store: QuotaStore;
  /** Where the counts live, for the startup line. */
  where: "memory" | "postgres";
  close(): Promise<void>;
}

export async function openQuotas(state: { postgres: string } | null): Promise<Quotas> {
  if (!state) return { store: new MemoryQuotaStore(), where: "memory", close: async () => undefined };
  // Loaded only for a gateway that shares state: every other serve (stdio's cold start above all)
  // never loads pg.
  const [{ openSharedState }, { PostgresQuotaStore }] = await Promise.all([
    import("../state/postgres.js"),
    import("./quota-postgres.js"),
  ]);
  const shared = await openSharedState(state.postgres);
  try {
    const store = await PostgresQuotaStore.open(shared);
    return {
      store,
      where: "postgres",
      close: async () => {
        await store.close();
        await shared.close();
      },
    };
  } catch (err) {
    await shared.close();
    throw err;
  }
}
