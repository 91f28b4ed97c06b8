/**
 * The stateful HTTP mode's sessions: one SDK transport each, when each was last used, and how
 * many requests each has open. Bounded: when the table is full, the idle session used longest
 * ago is closed to make room, so sessions nobody uses (clients that vanished without DELETE)
 * never lock a new client out. Only when every session has a request open (a call running, a
 * notification stream held) is a new client refused.
 */
import type { SessionTransport } from "./http-session-transport.js";

/** Sessions one server holds at most: a client that opens sessions in a loop cannot exhaust memory. */
export const MAX_SESSIONS = 256;
/** A session no request touched for this long is closed even when the table has room. */
export const SESSION_IDLE_MS = 30 * 60_000;

interface Session {
  transport: SessionTransport;
  lastSeen: number;
  open: number;
}

export class SessionTable {
  /** Insertion order is kept in use order (a touched session moves to the end): the first idle one is the oldest. */
  private readonly sessions = new Map<string, Session>();
  private readonly sweep: NodeJS.Timeout;
  /** Sessions closed to make room for a new client (counted for `status`). */
  evicted = 0;
  /** Places held by initialize requests still running. */
  private pending = 0;
  /** The session last in use order, which a touch leaves where it is (a client's requests in a row). */
  private newest: string | undefined;

  constructor(
    private readonly max = MAX_SESSIONS,
    private readonly idleMs = SESSION_IDLE_MS,
  ) {
    this.sweep = setInterval(
      () => {
        const now = Date.now();
        for (const [, s] of this.sessions)
          if (s.open === 0 && now - s.lastSeen > this.idleMs) void s.transport.close().catch(() => undefined);
      },
      Math.min(60_000, this.idleMs),
    );
    this.sweep.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): SessionTransport | undefined {
    return this.sessions.get(id)?.transport;
  }

  add(id: string, transport: SessionTransport): void {
    this.sessions.set(id, { transport, lastSeen: Date.now(), open: 0 });
    this.newest = id;
  }

  delete(id: string): void {
    this.sessions.delete(id);
    if (this.newest === id) this.newest = undefined;
  }

  /** A request on session `id` starts; the returned function ends it. */
  enter(id: string): () => void {
    const s = this.sessions.get(id);
    if (!s) return () => undefined;
    s.open++;
    this.touch(id, s);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      s.open--;
      if (this.sessions.get(id) === s) this.touch(id, s);
    };
  }

  /**
   * Room for one more session, held until the returned release is called (after the initialize
   * request ended, whether or not it made a session): when the table is full, the oldest idle
   * session is closed to make it. Null when every session is busy. Concurrent initializes each
   * hold their own place, so a burst cannot push the table past its bound.
   */
  async makeRoom(): Promise<(() => void) | null> {
    if (this.sessions.size + this.pending >= this.max) {
      const idle = [...this.sessions].find(([, s]) => s.open === 0);
      if (!idle) return null;
      // Removed before close resolves: a burst of new clients each evicts its own session.
      this.delete(idle[0]);
      this.evicted++;
      this.pending++;
      await idle[1].transport.close().catch(() => undefined);
    } else {
      this.pending++;
    }
    let released = false;
    return () => {
      if (!released) (released = true), this.pending--;
    };
  }

  async close(): Promise<void> {
    clearInterval(this.sweep);
    await Promise.all([...this.sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
  }

  private touch(id: string, s: Session): void {
    s.lastSeen = Date.now();
    if (this.newest === id) return;
    this.sessions.delete(id);
    this.sessions.set(id, s);
    this.newest = id;
  }
}
