/**
 * An instance said its lists changed (host.onListChanged: an upstream's list_changed, a reconnect, a
 * worker restart). Until the gateway has read them again and held them to their pins, that instance's
 * tools are "stale": a call of one waits for the re-read rather than reach a definition nobody
 * checked. Re-reads are bounded, however often an instance announces: the first comes at once (after
 * a short settle, so a burst is one read), then at most one a second. A call need not wait for that
 * read when another rebuild of the catalog began after the announcement and has ended: it read the
 * instance's lists after the change (the instance forgets its list before it announces) and held them
 * to their pins, the same check (an upstream that announces as it starts would otherwise hold every
 * first call for the settle).
 */
import type { Host } from "../host/api.js";
import type { ListChange } from "../host/types.js";

/** A burst of announcements (a server that adds ten tools one by one) becomes one read. */
const SETTLE_MS = 50;
/** At most one re-read a second, whatever an upstream announces. */
const MIN_INTERVAL_MS = 1_000;
/** A call waits at most this long for the re-read; then it is answered from what is known (refused if withheld). */
const MAX_WAIT_MS = 10_000;

export class ListChangeWatch {
  /** Announced, not read yet. */
  private stale = new Map<string, Set<ListChange["list"]>>();
  /** Being read now. */
  private reading = new Map<string, Set<ListChange["list"]>>();
  private timer: NodeJS.Timeout | null = null;
  private lastRead = 0;
  private waiters: { instance: string; done: () => void }[] = [];
  /** Announcements counted, each instance's last one by its count, and the count a finished rebuild covered. */
  private count = 0;
  private readonly last = new Map<string, number>();
  private covered = 0;
  private readonly stop: () => void;
  private closed = false;

  constructor(
    host: Host,
    /** Reads every list again and holds it to its pins; `lists`: what was announced, by instance. */
    private readonly reread: (lists: Map<string, Set<ListChange["list"]>>) => Promise<void>,
  ) {
    this.stop = host.onListChanged((c) => this.changed(c));
  }

  /** Resolves at once unless `instance` announced a change not read yet; then when it is read (bounded). */
  fresh(instance: string, signal?: AbortSignal): Promise<void> | null {
    if (!this.stale.has(instance) && !this.reading.has(instance)) return null;
    if ((this.last.get(instance) ?? 0) <= this.covered) return null;
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        // A call's signal outlives this wait: leave no listener on it.
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const t = setTimeout(done, MAX_WAIT_MS);
      t.unref();
      signal?.addEventListener("abort", done, { once: true });
      this.waiters.push({ instance, done });
    });
  }

  /** A rebuild of the whole catalog begins: what it returns goes to rebuilt() when it has ended. */
  rebuilding(): number {
    return this.count;
  }

  /**
   * The rebuild that began at `token` has read every list and held it to its pins: the calls
   * waiting for an instance that announced nothing since it began go on.
   */
  rebuilt(token: number): void {
    if (token <= this.covered) return;
    this.covered = token;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting)
      if ((this.last.get(w.instance) ?? 0) <= token) w.done();
      else this.waiters.push(w);
  }

  close(): void {
    this.closed = true;
    this.stop();
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.waiters.splice(0)) w.done();
  }

  private changed(c: ListChange): void {
    if (this.closed) return;
    this.last.set(c.instance, ++this.count);
    let lists = this.stale.get(c.instance);
    if (!lists) this.stale.set(c.instance, (lists = new Set()));
    lists.add(c.list);
    if (this.timer) return;
    const wait = Math.max(SETTLE_MS, this.lastRead + MIN_INTERVAL_MS - Date.now());
    this.timer = setTimeout(() => void this.read(), wait);
    this.timer.unref();
  }

  private async read(): Promise<void> {
    this.lastRead = Date.now();
    this.reading = this.stale;
    this.stale = new Map();
    try {
      await this.reread(this.reading);
    } catch {
      // The catalog's own refresh reports its failures; the waiters still go on.
    } finally {
      this.reading = new Map();
      this.timer = null;
      // An instance announced again during the read waits for the next one.
      const waiting = this.waiters;
      this.waiters = [];
      for (const w of waiting)
        if (this.stale.has(w.instance)) this.waiters.push(w);
        else w.done();
      if (this.stale.size > 0 && !this.closed) {
        this.timer = setTimeout(
          () => void this.read(),
          Math.max(SETTLE_MS, this.lastRead + MIN_INTERVAL_MS - Date.now()),
        );
        this.timer.unref();
      }
    }
  }
}
