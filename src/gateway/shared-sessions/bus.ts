/**
 * One replica's ear on the shared sessions' channel (store.ts announces on it): a dedicated
 * PostgreSQL connection that LISTENs, named `patchbay-replica:<id>` so that the other replicas can
 * tell this one is alive by looking for it in pg_stat_activity. A SIGKILLed replica's connection
 * closes with its process, so its death shows within one poll, with no heartbeat to wait out.
 *
 * A dropped connection is opened again (backing off up to 5 s); `onReconnect` then lets the owner
 * catch up on what it may have missed, since NOTIFY keeps nothing for a listener that was away.
 * Every payload is parsed strictly: one that does not parse is ignored.
 */
import pg from "pg";
import { CHANNEL } from "./store.js";

export type BusMessage =
  | { kind: "event"; session: string; seq: number; message: string | null }
  | { kind: "ended"; session: string }
  | { kind: "level"; session: string; level: string }
  | { kind: "unsubscribed"; session: string; holder: string | null; instance: string; uri: string };

const APP_PREFIX = "patchbay-replica:";
const ID = /^[A-Za-z0-9-]{1,64}$/;

export class SessionBus {
  private client: pg.Client | null = null;
  private closed = false;
  private retryMs = 250;
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly url: string,
    readonly replica: string,
    private readonly onMessage: (m: BusMessage) => void,
    private readonly onReconnect: () => void,
  ) {}

  /** Listens before it returns: a serve that cannot listen does not start. */
  static async open(
    url: string,
    replica: string,
    onMessage: (m: BusMessage) => void,
    onReconnect: () => void,
  ): Promise<SessionBus> {
    const bus = new SessionBus(url, replica, onMessage, onReconnect);
    await bus.connect();
    return bus;
  }

  /** The replicas whose listening connection is open now (this one included). */
  static async live(pool: pg.Pool): Promise<Set<string>> {
    const { rows } = await pool.query<{ name: string }>(
      "SELECT application_name AS name FROM pg_stat_activity WHERE application_name LIKE $1",
      [`${APP_PREFIX}%`],
    );
    return new Set(rows.map((r) => r.name.slice(APP_PREFIX.length)));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: `${APP_PREFIX}${this.replica}`,
      connectionTimeoutMillis: 3_000,
      keepAlive: true,
    });
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    client.on("notification", (n) => {
      if (n.channel !== CHANNEL || n.payload === undefined) return;
      const m = parse(n.payload);
      if (m) this.onMessage(m);
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.client = client;
    this.retryMs = 250;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    void client.end().catch(() => undefined);
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect().then(
        () => this.onReconnect(),
        () => {
          this.retryMs = Math.min(this.retryMs * 2, 5_000);
          this.retry();
        },
      );
    }, this.retryMs);
    this.timer.unref();
  }
}

/** A channel payload as store.ts writes it, or null. */
export function parse(payload: string): BusMessage | null {
  const nl = payload.indexOf("\n");
  const head = (nl < 0 ? payload : payload.slice(0, nl)).split(" ");
  const rest = nl < 0 ? null : payload.slice(nl + 1);
  const [kind, session] = head;
  if (!session || !ID.test(session)) return null;
  if (kind === "e" && head.length === 3 && /^\d{1,15}$/.test(head[2]))
    return { kind: "event", session, seq: Number(head[2]), message: rest };
  if (kind === "x" && head.length === 2) return { kind: "ended", session };
  if (kind === "l" && head.length === 3 && rest === null) return { kind: "level", session, level: head[2] };
  if (kind === "u" && head.length === 4 && rest !== null)
    return { kind: "unsubscribed", session, holder: head[2] === "-" ? null : head[2], instance: head[3], uri: rest };
  return null;
}
