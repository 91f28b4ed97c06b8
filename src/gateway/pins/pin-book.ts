/**
 * The gateway's pins at run time: every definition an upstream offers is held to its pin in
 * connectors.lock.json before any client sees it. In "enforce" a definition that differs from its pin,
 * one that is new to a pinned instance, or one carrying hidden text is withheld (and a call of it
 * refused with the reason); in "warn" it is served and flagged; "off" checks nothing. An instance the
 * lock does not know yet is trusted on first use: what it offers now is pinned and the lock written.
 * It also keeps the last definitions each instance offered, which `pins diff` and `pins accept` read.
 */
import type { PinningMode, ResolvedPinning } from "../../config/types.js";
import { pbError, type PatchbayError } from "../../errors.js";
export { findingError, type PinFinding } from "./findings.js";
import { type DefinitionKind, definitionHash, pinnedFields } from "./canonical.js";
import { type DefinitionChange, diffDefinitions, summarizeChanges } from "./diff.js";
import { findHiddenText, type HiddenTextFinding } from "./hidden-text.js";
import { acceptInto } from "./accept.js";
import { findingError, hiddenSummary, type PinFinding } from "./findings.js";
import { emptyLock, type InstancePins, type LockFile, type PinList, readLock, writeLock } from "./lock-file.js";

type Definition = { name: string } & Record<string, unknown>;

const KIND: Record<PinList, DefinitionKind> = {
  tools: "tool",
  prompts: "prompt",
  resourceTemplates: "resourceTemplate",
};

export interface PinDiff extends PinFinding {
  changes: DefinitionChange[];
  hidden: HiddenTextFinding[];
  /** The pinned fields as the upstream offers them now (for the operator: `pins diff` is theirs alone). */
  definition: Record<string, unknown>;
}

export interface PinBookOptions {
  /** connectors.lock.json's path; null: pins are kept in memory for this process only. */
  file: string | null;
  pinning: ResolvedPinning;
  /** A finding, once per definition until the lock changes (a definition that flaps warns once). */
  warn(message: string, data: Record<string, unknown>): void;
  /** Tells the operator the lock was written (stderr of serve). */
  say(line: string): void;
  /** Never write the lock (`pins diff` without a running serve): first use pins in memory only. */
  readOnly?: boolean;
}

export class PinBook {
  private lock: LockFile;
  private pinning: ResolvedPinning;
  private readonly live = new Map<string, Map<PinList, Map<string, Definition>>>();
  private readonly findings = new Map<string, PinFinding>();
  private readonly warned = new Set<string>();
  private pendingFirstUse = new Map<string, number>();
  /** When this process wrote the lock on first use, and for which instances (shown by status). */
  firstUse: { at: number; instances: string[] } | null = null;

  constructor(private readonly opts: PinBookOptions) {
    this.pinning = opts.pinning;
    this.lock = (opts.file ? readLock(opts.file) : null) ?? emptyLock();
  }

  get file(): string | null {
    return this.opts.file;
  }

  /** The mode of instances that set none. */
  get mode(): PinningMode {
    return this.pinning.default;
  }

  modeOf(instance: string): PinningMode {
    return this.pinning.instances[instance] ?? this.pinning.default;
  }

  /** After a hot reload: the gateway section now in force; the lock is read again. */
  reconfigure(pinning: ResolvedPinning): void {
    this.pinning = pinning;
    this.reload();
  }

  /** Reads the lock again (another process accepted pins); findings are made anew by the next review. */
  reload(): void {
    if (this.opts.file) this.lock = readLock(this.opts.file) ?? emptyLock();
    this.warned.clear();
  }

  /**
   * Holds `defs` (one instance's list, as clients would see it) to their pins: what may be served and
   * what is withheld, each withheld one with the error a call of it gets.
   */
  review<T extends Definition>(
    instance: string,
    list: PinList,
    defs: readonly T[],
    server?: { name?: string; version?: string },
  ): { served: T[]; withheld: { name: string; error: PatchbayError }[] } {
    this.liveOf(instance).set(list, new Map(defs.map((d) => [d.name, d])));
    for (const key of this.findings.keys()) if (key.startsWith(`${instance}\0${list}\0`)) this.findings.delete(key);
    const mode = this.modeOf(instance);
    if (mode === "off") return { served: [...defs], withheld: [] };
    // A list the lock has never pinned (a new instance, a first prompts/list) is trusted on first use.
    const pinned = this.lock.instances[instance]?.[list];
    const firstUse = pinned === undefined;
    const table = pinned ?? {};
    const served: T[] = [];
    const withheld: { name: string; error: PatchbayError }[] = [];
    let added = 0;
    for (const def of defs) {
      const kind = KIND[list];
      let hash: string;
      try {
        hash = definitionHash(kind, def);
      } catch {
        // Nested past what canonical JSON walks: it cannot be pinned, so it is never served unchecked.
        withheld.push({ name: def.name, error: this.unreadable(instance, list, def.name) });
        continue;
      }
      const pin = table[def.name];
      if (pin?.hash === hash) {
        served.push(def);
        continue;
      }
      const fields = pinnedFields(kind, def);
      const hidden = findHiddenText(fields);
      if (!pin && firstUse && hidden.findings.length === 0) {
        table[def.name] = { hash, definition: fields };
        added++;
        served.push(def);
        continue;
      }
      const finding = this.find(instance, list, def.name, mode, pin?.definition, fields, hidden.findings);
      const error = findingError(finding);
      if (mode === "warn") served.push(def);
      else withheld.push({ name: def.name, error });
    }
    if (firstUse) {
      const pins: InstancePins = this.lock.instances[instance] ?? (server ? { server } : {});
      pins[list] = table;
      this.lock.instances[instance] = pins;
      this.pendingFirstUse.set(instance, (this.pendingFirstUse.get(instance) ?? 0) + added);
    }
    return { served, withheld };
  }

  /** Writes what first use pinned since the last call, and says so once. */
  flush(): void {
    if (this.pendingFirstUse.size === 0) return;
    const counts = this.pendingFirstUse;
    this.pendingFirstUse = new Map();
    const instances = [...counts].filter(([, n]) => n > 0).map(([id]) => id);
    const pinned = [...counts.values()].reduce((a, b) => a + b, 0);
    if (instances.length > 0) {
      const known = (this.firstUse?.instances ?? []).filter((id) => !instances.includes(id));
      this.firstUse = { at: Date.now(), instances: [...known, ...instances] };
    }
    if (!this.opts.file || this.opts.readOnly) return;
    writeLock(this.opts.file, this.lock);
    // An empty list pinned (an instance with no prompts) is written quietly.
    if (pinned > 0)
      this.opts.say(
        `patchbay: pinned ${pinned} definitions of ${instances.join(", ")} in ${this.opts.file} (trust on first use). Commit it: from now on a changed or new definition is ${this.pinning.default === "enforce" ? "withheld" : "flagged"} until \`patchbay pins accept\`.`,
      );
  }

  /** Every definition that is not as pinned, as the last reviews found them. */
  list(): PinFinding[] {
    return [...this.findings.values()];
  }

  /** The findings of `instance` (all when null), each with what changed by JSON pointer and the hidden text. */
  diff(instance: string | null): PinDiff[] {
    return this.list()
      .filter((f) => instance === null || f.instance === instance)
      .map((f) => {
        const fields = pinnedFields(KIND[f.list], this.live.get(f.instance)!.get(f.list)!.get(f.name)!);
        const pin = this.lock.instances[f.instance]?.[f.list]?.[f.name];
        try {
          const changes = pin ? diffDefinitions(KIND[f.list], pin.definition, fields) : [];
          return { ...f, changes, hidden: findHiddenText(fields).findings, definition: fields };
        } catch {
          // Too deeply nested to walk (the finding says so): shown without its parts.
          return { ...f, changes: [], hidden: [], definition: {} };
        }
      });
  }

  /**
   * Pins what `instance` offers now: the named definitions, or (no names) all of them, forgetting the
   * pins of those it no longer offers. A definition with hidden text is pinned only with
   * `allowHiddenText`. Writes the lock. Throws PB_ERR_PINS_UNKNOWN for a name the instance does not offer.
   */
  accept(
    instance: string,
    names: readonly string[],
    opts: { allowHiddenText?: boolean } = {},
  ): { accepted: string[]; refused: { name: string; why: string }[] } {
    const live = this.live.get(instance);
    if (!live) {
      const known = [...this.live.keys()];
      throw pbError(
        "PB_ERR_PINS_UNKNOWN",
        `No live definitions of "${instance}" to accept${known.length ? ` (instances with definitions: ${known.join(", ")})` : ""}.`,
        { instance },
      );
    }
    const pins: InstancePins = this.lock.instances[instance] ?? {};
    const { accepted, refused, wanted } = acceptInto(pins, live, names, opts.allowHiddenText === true);
    if (wanted.size > 0) {
      throw pbError(
        "PB_ERR_PINS_UNKNOWN",
        `${instance} offers no ${[...wanted].map((n) => `"${n}"`).join(", ")}; nothing was accepted.`,
        { instance, names: [...wanted] },
      );
    }
    this.lock.instances[instance] = pins;
    if (this.opts.file) writeLock(this.opts.file, this.lock);
    this.warned.clear();
    return { accepted, refused };
  }

  /** A definition that cannot be pinned (too deeply nested): withheld whatever the mode, with its reason. */
  private unreadable(instance: string, list: PinList, name: string): PatchbayError {
    const finding: PinFinding = {
      instance,
      list,
      name,
      status: "drifted",
      code: "PB_ERR_TOOL_DRIFT",
      mode: "enforce",
      summary: "its definition is nested deeper than Patchbay pins (64 levels), so it cannot be checked",
    };
    this.note(finding);
    return findingError(finding);
  }

  /** Records a finding; warns of it once until the lock changes (a definition that flaps warns once). */
  private note(finding: PinFinding): void {
    const key = `${finding.instance}\0${finding.list}\0${finding.name}`;
    this.findings.set(key, finding);
    if (this.warned.has(key)) return;
    this.warned.add(key);
    const { list, name, code, mode } = finding;
    this.opts.warn(findingError(finding).message, { list, name, code, mode });
  }

  private liveOf(instance: string): Map<PinList, Map<string, Definition>> {
    let m = this.live.get(instance);
    if (!m) this.live.set(instance, (m = new Map()));
    return m;
  }

  private find(
    instance: string,
    list: PinList,
    name: string,
    mode: "enforce" | "warn",
    pinned: Record<string, unknown> | undefined,
    fields: Record<string, unknown>,
    hidden: HiddenTextFinding[],
  ): PinFinding {
    const status = hidden.length > 0 ? "hidden-text" : pinned ? "drifted" : "new";
    const summary =
      status === "hidden-text"
        ? hiddenSummary(hidden)
        : status === "new"
          ? `new since the lock was written`
          : summarizeChanges(diffDefinitions(KIND[list], pinned!, fields));
    const finding: PinFinding = {
      instance,
      list,
      name,
      status,
      code: status === "hidden-text" ? "PB_ERR_TOOL_HIDDEN_TEXT" : "PB_ERR_TOOL_DRIFT",
      mode,
      summary,
    };
    this.note(finding);
    return finding;
  }
}
