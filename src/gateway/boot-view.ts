/**
 * What the gateway offers while its host boots. A client may connect (and list) before any instance
 * is up, so until the first live catalog it is answered from the last boot's (catalog-cache.ts), and
 * its first tools/list may be held for the boot. Here too is what this start leaves the next: the
 * cache of this boot's tools, and the answers the next start's head start gives (head-start-answers.ts).
 * The live catalog itself is catalog-keeper.ts's; this module only reads it.
 */
import type { Host } from "../host/api.js";
import type { Catalog, CatalogTool } from "./catalog.js";
import { exposedFingerprints, loadProvisional, saveCatalog, type Provisional } from "./catalog-cache.js";
import { headStartAnswers } from "./head-start-answers.js";
import { offersOf, type Offers } from "./offers.js";
import { defaultThreadsStarted, prespawnSpecsStarted } from "../spawn/warm-threads.js";
import type { PrespawnSpec } from "../contract/rpc.js";
import { stampKey, type FrontAnswers } from "./stdio-front.js";

type Expose = Readonly<Record<string, boolean | readonly string[]>>;

/**
 * A client that lists once (the Inspector CLI, a script) should get every instance's tools, so the
 * first tools/list waits for the whole boot when the cache cannot answer it; the bound only keeps
 * the answer inside a client's request timeout (the SDK's is 60 s). A client that does not wait
 * (Claude Code in -p mode) is not slowed by the hold: it hears the rest through list_changed.
 */
const DEFAULT_HOLD_MS = 20_000;

export interface BootViewOptions {
  /** Where the tool list of the last boot is kept (catalog-cache.ts); null: no cache. */
  stateDir: string | null;
  /** How long the first tools/list waits for the boot when the cache cannot answer it. */
  holdMs?: number;
}

export class BootView {
  /** From goLive() on: the boot has ended, and saves include the head start's answers. */
  private isLive = false;
  /**
   * Once the first catalog of the booted instances is built: what requests are answered from.
   * Until then tools/list answers from the cache or waits, and calls wait. Not `live`: the gateway
   * may be created after every instance is up (serve loads it while they start), so until that first
   * build its catalog can be empty, and a request answered from it would find no tools.
   */
  private isOpen = false;
  private settle!: () => void;
  private readonly settled = new Promise<void>((resolve) => (this.settle = resolve));
  private provisional: Provisional = { tools: new Map(), complete: false };
  private fingerprints = new Map<string, string>();
  private readonly stateDir: string | null;
  /** Keys catalog.json's stamps (null without a state folder, or when it cannot be written). */
  private readonly stampKey: Buffer | null;
  private readonly holdMs: number;
  /** The head start's answers in the cache are from before this boot. */
  private frontStale = true;
  /** The threads this boot's instances started (spawn/warm-threads.ts), counted when it ended. */
  private threads = 0;
  /** The stdio servers their mcp-remote spawned (spawn/prespawn.ts), as of the same moment. */
  private spawns: PrespawnSpec[] = [];

  constructor(
    private readonly host: Host,
    expose: Expose,
    opts: BootViewOptions,
  ) {
    this.stateDir = opts.stateDir;
    this.holdMs = opts.holdMs ?? DEFAULT_HOLD_MS;
    this.stampKey = this.stateDir ? stampKey(this.stateDir, true) : null;
    if (this.stateDir && this.stampKey) {
      this.fingerprints = exposedFingerprints(host, expose, this.stampKey);
      this.provisional = loadProvisional(this.stateDir, this.fingerprints);
    }
  }

  /** The boot has ended (start() began its first build). */
  get live(): boolean {
    return this.isLive;
  }

  /** The first live catalog is built: requests are answered from it alone. */
  get opened(): boolean {
    return this.isOpen;
  }

  goLive(): void {
    this.isLive = true;
    // Now, not at a later save: restarts and reloads start threads too, and the count is the boot's.
    this.threads = defaultThreadsStarted();
    this.spawns = prespawnSpecsStarted();
  }

  /** The first live catalog is built: whatever waited for the boot goes on. */
  open(): void {
    this.isOpen = true;
    this.settle();
  }

  /** After a hot reload: an instance whose exposure changed no longer matches its cached entry. */
  reexpose(expose: Expose): void {
    if (this.stampKey) this.fingerprints = exposedFingerprints(this.host, expose, this.stampKey);
  }

  /**
   * The tools clients are offered. Booted: the live catalog. Booting: the instances that are
   * ready with their live tools, the others with their cached ones.
   */
  served(catalog: Catalog): Map<string, CatalogTool> {
    if (this.isOpen) return catalog.tools;
    const ready = new Set([...catalog.exposed].filter((id) => !catalog.skipped.some((s) => s.instance === id)));
    const out = new Map<string, CatalogTool>();
    for (const [name, t] of this.provisional.tools) if (!ready.has(t.route.instance)) out.set(name, t);
    for (const [name, t] of catalog.tools) out.set(name, t);
    return out;
  }

  /** The capabilities a new client is offered: the live catalog's once open, the manifests' before. */
  offers(catalog: Catalog, expose: Expose): Offers {
    return offersOf(this.host, expose, this.isOpen ? catalog.passthrough : null);
  }

  /**
   * What a list request waits for: nothing once open or when the cache covers every exposed
   * instance; otherwise the boot, bounded by holdMs (then it offers what is known, and list_changed
   * announces the rest).
   */
  listWait(): Promise<void> {
    if (this.isOpen || this.provisional.complete) return Promise.resolve();
    return Promise.race([this.settled, delay(this.holdMs)]);
  }

  /**
   * After a rebuild: the cache learns `catalog` (so it is kept even if the boot never finishes) when
   * what clients see `changed`, or once after the boot to store this start's head-start answers.
   */
  remember(catalog: Catalog, expose: Expose, changed: boolean): void {
    if (!this.stateDir || (!changed && !this.frontStale)) return;
    saveCatalog(
      this.stateDir,
      this.fingerprints,
      catalog,
      this.isLive ? this.frontAnswers(catalog, expose) : undefined,
    );
    if (this.isLive) this.frontStale = false;
  }

  /** What gateway/stdio-front.ts may answer before the next start's CLI has loaded (null: no config file). */
  private frontAnswers(catalog: Catalog, expose: Expose): FrontAnswers | undefined {
    const file = this.host.config?.file;
    if (!file || !this.stampKey) return undefined;
    return headStartAnswers(
      file,
      this.stampKey,
      this.offers(catalog, expose),
      [...this.served(catalog).values()].map((t) => t.tool),
      this.threads,
      // A command or argument that holds a secret value (a ${VAR} of one) is not written down.
      this.spawns.filter((spec) => {
        const text = JSON.stringify(spec);
        return this.host.scrubber.scrub(text) === text;
      }),
    );
  }

  /** Resolves when the boot has settled (or `signal` aborts first). */
  booted(signal?: AbortSignal): Promise<void> {
    if (this.isOpen) return Promise.resolve();
    if (!signal) return this.settled;
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
      void this.settled.then(resolve);
    });
  }

  /** The gateway closes: nothing waits for a boot that will not come. */
  close(): void {
    this.settle();
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
