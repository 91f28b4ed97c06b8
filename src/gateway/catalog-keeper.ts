/**
 * The gateway's live catalog and its upkeep: rebuilt (coalesced) on a health change, a reload, a
 * health tick, an upstream's list_changed (list-changes.ts) or accepted pins, each build held to the
 * pins (catalog.ts), and every connected client told by list_changed when what it is offered changed.
 * What it is offered while booting is boot-view.ts's; the servers themselves are gateway.ts's.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Host } from "../host/api.js";
import type { ListChange } from "../host/types.js";
import type { Logger } from "../log.js";
import type { BootView } from "./boot-view.js";
import { buildCatalog, catalogKey, type Catalog } from "./catalog.js";
import { ListChangeWatch } from "./list-changes.js";
import { lockPathFor } from "./pins/lock-file.js";
import { PinBook } from "./pins/pin-book.js";
import type { Subscriptions } from "./subscriptions.js";

type Expose = Readonly<Record<string, boolean | readonly string[]>>;

export interface CatalogKeeperOptions {
  expose: Expose;
  logger: Logger;
  /** Where a message for the operator goes, e.g. that the lock file was written. */
  say: (line: string) => void;
  boot: BootView;
  /** The connected clients' servers (gateway.ts adds and drops them); the keeper only notifies them. */
  servers: ReadonlySet<Server>;
  subscriptions: Subscriptions;
  /** What clients are offered changed: cached per-tool checks are out of date. */
  toolsChanged: () => void;
}

export class CatalogKeeper {
  private current: Catalog = {
    tools: new Map(),
    skipped: [],
    errors: [],
    passthrough: { resources: [], templates: [], subscribable: [], prompts: [] },
    exposed: new Set(),
    withheld: new Map(),
  };
  /** What clients were last told they are offered (catalogKey). */
  private key: string;
  private refreshing: Promise<void> | null = null;
  private again = false;
  private exposed: Expose;
  /** Definitions held to connectors.lock.json (pins/pin-book.ts). */
  readonly pins: PinBook;
  private readonly listChanges: ListChangeWatch;
  private readonly boot: BootView;

  constructor(
    private readonly host: Host,
    private readonly opts: CatalogKeeperOptions,
  ) {
    this.exposed = opts.expose;
    this.boot = opts.boot;
    this.pins = new PinBook({
      file: lockPathFor(host.config?.file ?? null),
      pinning: host.config?.gateway.pinning ?? { default: "enforce", instances: {} },
      warn: (message, data) => opts.logger.warn(data, message),
      say: opts.say,
    });
    this.listChanges = new ListChangeWatch(host, (lists) => this.listsChanged(lists));
    // What clients are first told is the cached list: the live one is announced only if it differs.
    this.key = catalogKey({ ...this.current, tools: this.boot.served(this.current) });
  }

  get catalog(): Catalog {
    return this.current;
  }

  /** The gateway section's exposure now in force. */
  get expose(): Expose {
    return this.exposed;
  }

  /** After a hot reload: the gateway section now in force. */
  setExpose(expose: Expose, pinning?: Parameters<PinBook["reconfigure"]>[0]): void {
    this.exposed = expose;
    if (pinning) this.pins.reconfigure(pinning);
    this.boot.reexpose(expose);
  }

  /** Resolves at once unless `instance` announced changed lists not read yet (list-changes.ts). */
  fresh(instance: string, signal?: AbortSignal): Promise<void> | null {
    return this.listChanges.fresh(instance, signal);
  }

  /**
   * Rebuilds the catalog (after a health change, a reload, or on each health tick) and tells
   * every client when what it sees changed. Concurrent requests coalesce into one more rebuild.
   */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        const token = this.listChanges.rebuilding();
        const next = await buildCatalog(this.host, this.exposed, this.pins);
        this.current = next;
        this.listChanges.rebuilt(token);
        const key = catalogKey({ ...next, tools: this.boot.served(next) });
        this.boot.remember(next, this.exposed, key !== this.key);
        // A restarted or withdrawn instance's subscriptions are renewed or ended.
        if (this.boot.live) this.opts.subscriptions.sync(next.exposed);
        this.announceIfChanged(key);
      } while (this.again);
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /**
   * The boot has settled: the last refresh measured what clients see by the boot's view, so they
   * hear the live catalog if it differs, and may list resources and prompts again, since lists
   * during the boot may have missed connectors that were not ready.
   */
  opened(): void {
    this.announceIfChanged(catalogKey({ ...this.current, tools: this.boot.served(this.current) }));
    this.tellLists(["resources", "prompts"]);
  }

  /** Tells clients when the tools they are offered changed (`key`: what they are offered now). */
  private announceIfChanged(key: string): void {
    if (key === this.key) return;
    this.key = key;
    this.opts.toolsChanged();
    for (const s of this.opts.servers) void s.sendToolListChanged().catch(() => undefined);
  }

  /**
   * Instances announced changed lists: read them again (and hold them to their pins) before any client
   * hears, then tell clients what changed: tools by list_changed when what they see differs, prompts and
   * resources (read live per request) by their list_changed.
   */
  private async listsChanged(lists: Map<string, Set<ListChange["list"]>>): Promise<void> {
    await this.refresh();
    const all = [...lists.values()];
    const said = (l: ListChange["list"]) => all.some((s) => s.has(l) || s.has("all"));
    this.tellLists((["prompts", "resources"] as const).filter(said));
  }

  /**
   * list_changed for `lists`, in that order, to every client. The SDK refuses, without sending, a
   * notification for a capability a server did not offer, hence the swallowed rejection.
   */
  private tellLists(lists: readonly ("prompts" | "resources")[]): void {
    for (const s of this.opts.servers)
      for (const list of lists)
        void Promise.resolve()
          .then(() => (list === "prompts" ? s.sendPromptListChanged() : s.sendResourceListChanged()))
          .catch(() => undefined);
  }

  /** The operator accepted pins (patchbay pins accept): withheld definitions may be served now. */
  async pinsChanged(): Promise<void> {
    await this.refresh();
  }

  close(): void {
    this.listChanges.close();
  }
}
