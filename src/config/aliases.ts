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

export function resolveAliases(sections: SectionEntries): AliasResolution {
  const aliases: Record<string, string> = {};
  const issues: ConfigIssue[] = [];
  for (const section of SECTIONS) {
    const entries = sections[section];
    if (!entries) continue;
    const reportedCycles = new Set<string>();
    for (const [name, value] of Object.entries(entries)) {
      if (typeof value !== "string") continue;
      const chain = [name];
      let target = value;
      for (;;) {
        if (!Object.hasOwn(entries, target)) {
          // Reported by the alias that points at the missing name, not by each alias chained to it.
          if (chain.length === 1) {
            issues.push({ pointer: toPointer([section, name]), message: `alias points to "${target}", which is not an instance in ${section}` });
          }
          break;
        }
        const next = entries[target];
        if (typeof next !== "string") {
          aliases[`${section}/${name}`] = `${section}/${target}`;
          break;
        }
        const seen = chain.indexOf(target);
        if (seen !== -1) {
          // Only a member of the cycle reports it (the first one met, in file order); aliases
          // that merely lead into it are fixed by fixing the cycle.
          const cycle = chain.slice(seen);
          const key = [...cycle].sort().join("\u0000");
          if (seen === 0 && !reportedCycles.has(key)) {
            reportedCycles.add(key);
            issues.push({ pointer: toPointer([section, name]), message: `aliases form a cycle: ${[...cycle, target].join(" → ")}` });
          }
          break;
        }
        chain.push(target);
        target = next;
      }
    }
  }
  return { aliases, issues };
}
