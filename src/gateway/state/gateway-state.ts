/**
 * What a `serve --http` keeps beside its own process: the client quotas (in memory, or in
 * gateway.state's PostgreSQL, shared by replicas) and, with gateway.state and stateful HTTP, the
 * sessions any replica serves. Opened before anything listens: a database that cannot be reached
 * stops the start rather than leave replicas counting, or keeping sessions, each on its own.
 */
import type { ClientRegistry } from "../clients/registry.js";
import { openQuotas, type Quotas } from "../clients/quota.js";
import type { Gateway } from "../gateway.js";
import type { SharedSessions } from "../shared-sessions/sessions.js";

export interface GatewayState {
  quotas: Quotas;
  sessions: SharedSessions | null;
  close(): Promise<void>;
}

export async function openGatewayState(
  gateway: Gateway,
  clients: ClientRegistry,
  state: { postgres: string } | null,
  opts: { stateless: boolean; say: (line: string) => void },
): Promise<GatewayState> {
  const quotas = await openQuotas(state);
  gateway.calls.gate.quotas = quotas.store;
  if (quotas.where === "postgres")
    opts.say("patchbay: client quotas are shared by replicas in gateway.state (PostgreSQL).");
  if (!state || opts.stateless) return { quotas, sessions: null, close: () => quotas.close() };
  // Loaded only here: a serve without gateway.state never loads pg.
  const { SharedSessions } = await import("../shared-sessions/sessions.js");
  let sessions: SharedSessions;
  try {
    sessions = await SharedSessions.open(state.postgres, gateway, clients);
  } catch (err) {
    await quotas.close();
    throw err;
  }
  opts.say("patchbay: sessions are kept in gateway.state (PostgreSQL): any replica serves any session's request.");
  return {
    quotas,
    sessions,
    close: async () => {
      await sessions.close();
      await quotas.close();
    },
  };
}
