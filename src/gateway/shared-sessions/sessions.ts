/**
 * Stateful HTTP sessions that any replica serves (gateway.state.postgres set, not --stateless).
 * The session lives in PostgreSQL (store.ts); each replica that receives one of its requests keeps
 * a local copy: an SDK server and transport made to be what the session is (the client's
 * initialize replayed to it, its log level), cached so that a request costs one small round trip
 * (does the session still exist?), and dropped when the channel (bus.ts) says the session ended.
 *
 * Notifications of a session, produced by whichever replica's copy, are stored and announced;
 * the replica holding the client's GET stream sends them (stream.ts). A resource subscription is
 * held on the instance of the replica that took the subscribe; when that replica is gone (its
 * listening connection closed), another claims it within a poll, subscribes on its own instance,
 * and tells the client the resource may have changed, since nobody watched it in between.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Caller } from "../clients/caller.js";
import type { ClientRegistry } from "../clients/registry.js";
import type { Gateway } from "../gateway.js";
import { openSharedState, type SharedState } from "../state/postgres.js";
import { listenFailed, SessionBus, type BusMessage } from "./bus.js";
import { makeCopy, makeRoom, openCopyStream, roomForOneMore, type SharedCopy } from "./copy.js";
import { SessionStore, type SessionRecord } from "./store.js";
import { claimOrphans } from "./takeover.js";

/** A session no request touched for this long ends, on every replica (as in one process). */
export const SHARED_IDLE_MS = 30 * 60_000;
/** A caller's sessions kept at most, on all replicas together; its least recently used beyond end. */
export const SESSIONS_PER_CALLER = 4_096;
/** How often a replica looks for subscriptions whose holder is gone. */
const CLAIM_EVERY_MS = 1_000;
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class SharedSessions {
  readonly replica = randomUUID();
  /** In use order: the first that holds nothing is the one dropped to make room. */
  private readonly copies = new Map<string, SharedCopy>();
  private readonly adopting = new Map<string, Promise<SharedCopy>>();
  private readonly byServer = new WeakMap<Server, SharedCopy>();
  private touched = new Set<string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private claiming = false;
  private bus: SessionBus | null = null;
  /** Local copies dropped to make room (the session itself goes on). */
  evicted = 0;
  /** A request of `session` was cancelled through some replica (http-shared.ts withdraws those it answers alone). */
  onCancelled: ((session: string, requestId: string) => void) | null = null;

  private constructor(
    private readonly gateway: Gateway,
    private readonly registry: ClientRegistry,
    private readonly store: SessionStore,
    private readonly state: SharedState,
  ) {}

  static async open(
    url: string,
    gateway: Gateway,
    registry: ClientRegistry,
    idleMs = SHARED_IDLE_MS,
  ): Promise<SharedSessions> {
    const state = await openSharedState(url);
    try {
      const store = await SessionStore.open(state);
      const sessions = new SharedSessions(gateway, registry, store, state);
      sessions.bus = await SessionBus.open(
        url,
        sessions.replica,
        (m) => sessions.heard(m),
        () => sessions.caughtUp(),
      ).catch((err: unknown) => Promise.reject(listenFailed(state.describe(err))));
      gateway.subscriptionHooks = {
        subscribed: (server, instance, uri) => sessions.subscribed(server, instance, uri),
        unsubscribed: (server, uri) => sessions.unsubscribed(server, uri),
      };
      // Sessions left idle while no replica ran end now, before the first claim would carry on their subscriptions.
      await store.expire(idleMs).catch(() => undefined);
      sessions.every(Math.min(10_000, idleMs / 4), () => sessions.flushTouches());
      sessions.every(Math.min(60_000, idleMs / 2), () => sessions.store.expire(idleMs));
      sessions.every(CLAIM_EVERY_MS, () => sessions.claim());
      return sessions;
    } catch (err) {
      await state.close();
      throw err;
    }
  }

  get size(): number {
    return this.copies.size;
  }

  /** Why the database failed, without its connection string or password. */
  describe(err: unknown): string {
    return this.state.describe(err);
  }

  /** The session `id` if `caller` may use it: null when there is none, "forbidden" when another caller's. */
  async session(id: string, caller: Caller): Promise<SharedCopy | null | "forbidden"> {
    const local = this.copies.get(id);
    if (local) {
      if (local.record.binding !== caller.binding) return "forbidden";
      // The ending's notification may still be on its way: a session deleted or expired through
      // another replica must be gone here the moment that replica answered, not a moment later.
      // With the database away, a session this replica holds goes on (its end, if any, is heard
      // when the channel reconnects): calls keep working, as those of clients without quotas do.
      if (!(await this.store.exists(id).catch(() => true))) {
        await local.transport.close();
        return null;
      }
      // Dropped to make room while the check was out: built again below, as on a replica without one
      // (handing back the closed copy would fail this request and every later one here).
      if (this.copies.get(id) === local) return this.used(local);
    }
    if (!SESSION_ID.test(id)) return null;
    const record = await this.store.get(id);
    if (!record) return null;
    if (record.binding !== caller.binding) return "forbidden";
    return this.used(await this.adopt(record, caller));
  }

  /** A new session for `caller`, recorded before its initialize is answered (its next request may go elsewhere). */
  async create(caller: Caller, init: Record<string, unknown>): Promise<SharedCopy> {
    roomForOneMore(this.copies);
    const record: SessionRecord = {
      id: randomUUID(),
      binding: caller.binding,
      client: caller.id,
      init,
      logLevel: null,
      seq: 0,
    };
    await this.store.create(record, SESSIONS_PER_CALLER);
    return this.used(await this.build(record, caller, false));
  }

  /** A request of `copy` starts; the returned function ends it. */
  enter(copy: SharedCopy): () => void {
    copy.open++;
    let done = false;
    return () => {
      if (!done) (done = true), copy.open--, (copy.lastSeen = Date.now());
    };
  }

  /** The client cancelled `requestId`: whichever replica runs it withdraws it. */
  cancel(copy: SharedCopy, requestId: string | number): void {
    void this.store.cancel(copy.id, requestId).catch(() => undefined);
  }

  /** Ends the session on every replica. */
  async end(id: string): Promise<void> {
    await this.store.end(id);
    await this.copies.get(id)?.transport.close();
  }

  /** The client's GET stream: its notifications from every replica, resumed after Last-Event-ID. */
  stream(copy: SharedCopy, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    return openCopyStream(copy, this.store, req, res);
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    // What this replica held is claimed by the others at once rather than after it is seen gone.
    await this.store.release(this.replica).catch(() => undefined);
    await Promise.all([...this.copies.values()].map((c) => c.transport.close().catch(() => undefined)));
    await this.bus?.close();
    await this.state.close();
  }

  private used(copy: SharedCopy): SharedCopy {
    copy.lastSeen = Date.now();
    this.touched.add(copy.id);
    this.copies.delete(copy.id);
    this.copies.set(copy.id, copy);
    return copy;
  }

  /**
   * This replica's one copy of the session, built once. Requests that looked the session up
   * together each arrive here after their own round trip, often after the first one's copy is
   * built: a second copy would take the first's place in `copies`, and the GET stream or
   * subscription the first holds would then go on unheard (notifications are delivered to the
   * stream of the copy in `copies`) and never be closed with the session.
   */
  private adopt(record: SessionRecord, caller: Caller): Promise<SharedCopy> {
    const built = this.copies.get(record.id);
    if (built) return Promise.resolve(built);
    let pending = this.adopting.get(record.id);
    if (!pending) {
      roomForOneMore(this.copies);
      pending = this.build(record, caller, true).finally(() => this.adopting.delete(record.id));
      this.adopting.set(record.id, pending);
    }
    return pending;
  }

  private async build(record: SessionRecord, caller: Caller, replay: boolean): Promise<SharedCopy> {
    const id = record.id;
    const copy = makeCopy(this.gateway, this.store, record, caller);
    copy.transport.onclose = () => {
      if (this.copies.get(id) === copy) this.copies.delete(id);
      copy.stream?.end();
      void copy.server.close().catch(() => undefined);
    };
    const { server, transport } = copy;
    await server.connect(transport);
    if (replay) transport.replayInitialize(record.init, record.logLevel);
    copy.lastSeen = Date.now();
    this.copies.set(id, copy);
    this.byServer.set(server, copy);
    this.evicted += makeRoom(this.copies);
    return copy;
  }

  private heard(m: BusMessage): void {
    const copy = this.copies.get(m.session);
    if (!copy) return;
    if (m.kind === "event") copy.stream?.push(m.seq, m.message);
    else if (m.kind === "ended") void copy.transport.close().catch(() => undefined);
    else if (m.kind === "level") copy.transport.setLevel(m.level);
    else if (m.kind === "cancelled") {
      copy.transport.deliver({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: m.requestId, reason: "the client cancelled it (through another replica)" },
      });
      this.onCancelled?.(m.session, String(m.requestId));
    } else if (m.holder === this.replica || m.holder === null) {
      copy.held.delete(`${m.instance}\n${m.uri}`);
      void this.gateway.releaseSubscription(copy.server, m.uri).catch(() => undefined);
    }
  }

  /** The channel was lost for a while: each stream reads what it may have missed. */
  private caughtUp(): void {
    for (const c of this.copies.values()) c.stream?.catchUp();
  }

  private async subscribed(server: Server, instance: string, uri: string): Promise<void> {
    const copy = this.byServer.get(server);
    if (!copy) return;
    await this.store.subscribed(copy.id, instance, uri, this.replica);
    copy.held.add(`${instance}\n${uri}`);
  }

  private async unsubscribed(server: Server, uri: string): Promise<void> {
    const copy = this.byServer.get(server);
    if (!copy) return;
    for (const key of copy.held) if (key.endsWith(`\n${uri}`)) copy.held.delete(key);
    await this.store.unsubscribed(copy.id, uri);
  }

  private async flushTouches(): Promise<void> {
    for (const c of this.copies.values()) if (c.stream || c.open > 0) this.touched.add(c.id);
    const ids = [...this.touched];
    this.touched = new Set();
    await this.store.touch(ids);
  }

  /** Carries on the subscriptions of replicas that are gone (takeover.ts); one round at a time. */
  private async claim(): Promise<void> {
    if (this.claiming) return;
    this.claiming = true;
    try {
      await claimOrphans({
        store: this.store,
        replica: this.replica,
        gateway: this.gateway,
        callerFor: (binding) => this.registry.callerFor(binding),
        copyOf: (record, caller) => this.adopt(record, caller),
        end: (id) => this.end(id),
        live: () => SessionBus.live(this.store.pool),
      });
    } finally {
      this.claiming = false;
    }
  }

  private every(ms: number, work: () => Promise<unknown>): void {
    // A failed round (the database away for a moment) is tried again on the next tick.
    const t = setInterval(() => void work().catch(() => undefined), ms);
    t.unref();
    this.timers.push(t);
  }
}
