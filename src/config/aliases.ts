/**
 * Aliases: in a section, a string value names another instance of the same section
 * (`"default": "gemma2"`). Chains are fine (a → b → c); a cycle or a name that is not in the
 * section is an error. Every problem is reported, once, at the alias that causes it.
 */
import { SECTIONS, type Section } from "../contract/kinds.js";
import { toPointer, type ConfigIssue } from "./issues.js";

export interface AliasResolution {
  /** "localModels/default" → "localModels/gemma2" (always the final instance, never an alias). */
  aliases: Record<string, string>;
  issues: ConfigIssue[];
}

/** Section entries as the schema left them: a string is an alias, anything else an instance. */
export type SectionEntries = Partial<Record<Section, Readonly<Record<string, unknown>>>>;

type Outcome = { to: string } | { broken: true };

/**
 * Linear in the number of entries (a 5,000-long chain took 33 s when every alias
 * walked its own chain): each alias is walked once and its outcome remembered for every alias
 * that leads to it. Issues come out in file order of the alias that reports them.
 */
export function resolveAliases(sections: SectionEntries): AliasResolution {
  const aliases: Record<string, string> = {};
  const found: { order: number; issue: ConfigIssue }[] = [];
  let base = 0;
  for (const section of SECTIONS) {
    const entries = sections[section];
    if (!entries) continue;
    const names = Object.keys(entries);
    const order = new Map(names.map((n, i) => [n, base + i]));
    base += names.length;
    const memo = new Map<string, Outcome>();
    const report = (name: string, message: string) =>
      found.push({ order: order.get(name)!, issue: { pointer: toPointer([section, name]), message } });
    for (const name of names) {
      if (typeof entries[name] !== "string" || memo.has(name)) continue;
      const path: string[] = [];
      const onPath = new Map<string, number>();
      let cur = name;
      let outcome: Outcome;
      for (;;) {
        const known = memo.get(cur);
        if (known) {
          outcome = known;
          break;
        }
        if (!Object.hasOwn(entries, cur)) {
          // Reported by the alias that points at the missing name, not by each alias chained to it.
          report(path[path.length - 1], `alias points to "${cur}", which is not an instance in ${section}`);
          outcome = { broken: true };
          break;
        }
        const next = entries[cur];
        if (typeof next !== "string") {
          outcome = { to: cur };
          break;
        }
        const at = onPath.get(cur);
        if (at !== undefined) {
          // Only a member of the cycle reports it (the first in file order); aliases that merely
          // lead into it are fixed by fixing the cycle.
          const cycle = path.slice(at);
          const first = cycle.reduce((a, b) => (order.get(a)! <= order.get(b)! ? a : b));
          const k = cycle.indexOf(first);
          const rotated = [...cycle.slice(k), ...cycle.slice(0, k)];
          report(first, `aliases form a cycle: ${[...rotated, first].join(" → ")}`);
          outcome = { broken: true };
          break;
        }
        onPath.set(cur, path.length);
        path.push(cur);
        cur = next;
      }
      for (const p of path) {
        memo.set(p, outcome);
        if ("to" in outcome) aliases[`${section}/${p}`] = `${section}/${outcome.to}`;
      }
    }
  }
  return { aliases, issues: found.sort((a, b) => a.order - b.order).map((f) => f.issue) };
}
