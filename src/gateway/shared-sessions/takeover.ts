/**
 * A replica carrying on the resource subscriptions of one that is gone: its listening connection
 * is no longer in pg_stat_activity (bus.ts), or it stopped and let go of them. Each subscription
 * is claimed by exactly one replica that runs its instance (store.ts; a gateway of another
 * configuration sharing the database, which would refuse it, leaves it alone), subscribed on that
 * replica's instance, and its client is told the resource updated: nobody watched it between the
 * death and the claim, so a change then would otherwise go unheard. A subscription its instance
 * refuses here ends, and the client is told so in its log stream rather than left waiting for
 * updates that will not come.
 * One that fails on the way for another reason (the database slow to answer under load, the
 * session's copy not built) is handed back for the next round: claimed and never held, it would
 * be nobody's, and its client would hear of no change again. Each row is carried on by itself,
 * so one failure leaves the rest of a round's rows to go on.
 */
import type { Caller } from "../clients/caller.js";
import type { Gateway } from "../gateway.js";
import type { SharedCopy } from "./copy.js";
import type { HeldSubscription, SessionRecord, SessionStore } from "./store.js";

/** What takeover asks of the store (store.ts). */
export type TakeoverStore = Pick<SessionStore, "holders" | "claim" | "letGo" | "get" | "unsubscribed">;

export interface TakeoverDeps {
  store: TakeoverStore;
  replica: string;
  gateway: Gateway;
  callerFor(binding: string): Caller | null;
  copyOf(record: SessionRecord, caller: Caller): SharedCopy | Promise<SharedCopy>;
  end(id: string): Promise<void>;
  /** The replicas alive now (bus.ts `SessionBus.live`: their listening connections). */
  live(): Promise<Set<string>>;
}

export async function claimOrphans(deps: TakeoverDeps): Promise<void> {
  const instances = deps.gateway.instanceIds();
  const holders = await deps.store.holders(deps.replica, instances);
  if (holders.length === 0) return;
  const live = await deps.live();
  const gone = holders.filter((h): h is string => h !== null && !live.has(h));
  if (gone.length === 0 && !holders.includes(null)) return;
  for (const row of await deps.store.claim(deps.replica, gone, instances))
    await carryOn(deps, row).catch(() => deps.store.letGo(deps.replica, row).catch(() => undefined));
}

async function carryOn(deps: TakeoverDeps, row: HeldSubscription): Promise<void> {
  const record = await deps.store.get(row.session);
  if (!record) return;
  // The client's policy as configured now; a client revoked since has no session to carry on.
  const caller = deps.callerFor(record.binding);
  if (!caller) return deps.end(record.id);
  const copy = await deps.copyOf(record, caller);
  try {
    await deps.gateway.holdSubscription(copy.server, row.instance, row.uri);
  } catch (err) {
    await deps.store.unsubscribed(record.id, row.uri).catch(() => undefined);
    const why = err instanceof Error ? err.message : String(err);
    await copy.server
      .sendLoggingMessage({
        level: "warning",
        logger: "patchbay",
        data: `The subscription to ${row.uri.slice(0, 200)} ended: the replica holding it is gone and ${row.instance} refused it here (${why.slice(0, 300)}). Subscribe again.`,
      })
      .catch(() => undefined);
    return;
  }
  copy.held.add(`${row.instance}\n${row.uri}`);
  // Held here and recorded as this replica's: a failure to send the hint loses the hint, not the subscription.
  await copy.server.sendResourceUpdated({ uri: row.uri }).catch(() => undefined);
}
