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
import { type DefinitionKind, definitionHash, pinnedFields } from "./canonical.js";
import { type DefinitionChange, diffDefinitions, summarizeChanges } from "./diff.js";
import { findHiddenText, type HiddenTextFinding } from "./hidden-text.js";
import { emptyLock, type InstancePins, type LockFile, type PinList, readLock, writeLock } from "./lock-file.js";

type Definition = { name: string } & Record<string, unknown>;

const KIND: Record<PinList, DefinitionKind> = {
  tools: "tool",
  prompts: "prompt",
  resourceTemplates: "resourceTemplate",
};
const NOUN: Record<PinList, string> = { tools: "tool", prompts: "prompt", resourceTemplates: "resource template" };

export interface PinFinding {
  instance: string;
  list: PinList;
  name: string;
  status: "drifted" | "new" | "hidden-text";
  code: "PB_ERR_TOOL_DRIFT" | "PB_ERR_TOOL_HIDDEN_TEXT";
  /** What the gateway does with it: "enforce" withholds, "warn" serves. */
  mode: "enforce" | "warn";
  /** What changed, by JSON pointer (never the new text itself: that is for `pins diff`). */
  summary: string;
}

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
      const hash = definitionHash(kind, def);
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
        return {
          ...f,
          changes: pin ? diffDefinitions(KIND[f.list], pin.definition, fields) : [],
          hidden: findHiddenText(fields).findings,
          definition: fields,
        };
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
    const wanted = new Set(names);
    const pins: InstancePins = this.lock.instances[instance] ?? {};
    const accepted: string[] = [];
    const refused: { name: string; why: string }[] = [];
    for (const [list, defs] of live) {
      const table = (pins[list] ??= {});
      if (names.length === 0) for (const name of Object.keys(table)) if (!defs.has(name)) delete table[name];
      for (const [name, def] of defs) {
        if (names.length > 0 && !wanted.has(name)) continue;
        wanted.delete(name);
        const kind = KIND[list];
        const fields = pinnedFields(kind, def);
        const hidden = findHiddenText(fields).findings;
        if (hidden.length > 0 && !opts.allowHiddenText) {
          refused.push({
            name,
            why: `it has hidden text (${hiddenSummary(hidden)}); accept it with --allow-hidden-text`,
          });
          continue;
        }
        table[name] = {
          hash: definitionHash(kind, def),
          definition: fields,
          ...(hidden.length ? { allowHiddenText: true as const } : {}),
        };
        accepted.push(name);
      }
    }
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
    const key = `${instance}\0${list}\0${name}`;
    this.findings.set(key, finding);
    if (!this.warned.has(key)) {
      this.warned.add(key);
      this.opts.warn(findingError(finding).message, { instance, list, name, code: finding.code, mode });
    }
    return finding;
  }
}

function hiddenSummary(hidden: HiddenTextFinding[]): string {
  const shown = hidden.slice(0, 5).map((h) => `${h.codePoint} (${h.kind}) at ${h.pointer}:${h.position}`);
  return `${shown.join(", ")}${hidden.length > 5 ? `, and ${hidden.length - 5} more` : ""}`;
}

/** The error a call of a withheld definition gets: what and why, never the new text. */
export function findingError(f: PinFinding): PatchbayError {
  const what = `${f.instance}: ${NOUN[f.list]} "${f.name}"`;
  const how = f.mode === "enforce" ? "it is withheld until the operator reviews it" : "it is served, flagged";
  const accept = `patchbay pins accept ${f.instance} ${f.name}${f.status === "hidden-text" ? " --allow-hidden-text" : ""}`;
  const message =
    f.status === "hidden-text"
      ? `${what} has characters a person does not see but a model reads: ${f.summary}; ${how} (patchbay pins diff ${f.instance}, then ${accept}).`
      : f.status === "new"
        ? `${what} is new since connectors.lock.json was written; ${how} (patchbay pins diff ${f.instance}, then ${accept}).`
        : `${what} differs from its pin in connectors.lock.json (${f.summary}); ${how} (patchbay pins diff ${f.instance}, then ${accept}).`;
  return pbError(f.code, message, { instance: f.instance, [NOUN[f.list].replace(" ", "_")]: f.name, status: f.status });
}
