/**
 * `pins accept` on one instance's pins: what it offers now is pinned (the named definitions, or all of
 * them, forgetting the pins of those it no longer offers), hidden text only when allowed, and a
 * definition that cannot be pinned (nested too deep) refused with its reason.
 */
import { type DefinitionKind, definitionHash, pinnedFields } from "./canonical.js";
import { hiddenSummary } from "./findings.js";
import { findHiddenText } from "./hidden-text.js";
import type { InstancePins, PinList } from "./lock-file.js";

const KIND: Record<PinList, DefinitionKind> = {
  tools: "tool",
  prompts: "prompt",
  resourceTemplates: "resourceTemplate",
};

export function acceptInto(
  pins: InstancePins,
  live: ReadonlyMap<PinList, ReadonlyMap<string, Record<string, unknown>>>,
  names: readonly string[],
  allowHiddenText: boolean,
): { accepted: string[]; refused: { name: string; why: string }[]; wanted: Set<string> } {
  const wanted = new Set(names);
  const accepted: string[] = [];
  const refused: { name: string; why: string }[] = [];
  for (const [list, defs] of live) {
    const table = (pins[list] ??= {});
    if (names.length === 0) for (const name of Object.keys(table)) if (!defs.has(name)) delete table[name];
    for (const [name, def] of defs) {
      if (names.length > 0 && !wanted.has(name)) continue;
      wanted.delete(name);
      const kind = KIND[list];
      let hash: string;
      let hidden: ReturnType<typeof findHiddenText>["findings"];
      try {
        hash = definitionHash(kind, def);
        hidden = findHiddenText(pinnedFields(kind, def)).findings;
      } catch {
        refused.push({ name, why: "its definition is nested deeper than Patchbay pins (64 levels)" });
        continue;
      }
      if (hidden.length > 0 && !allowHiddenText) {
        refused.push({
          name,
          why: `it has hidden text (${hiddenSummary(hidden)}); accept it with --allow-hidden-text`,
        });
        continue;
      }
      table[name] = {
        hash,
        definition: pinnedFields(kind, def),
        ...(hidden.length ? { allowHiddenText: true as const } : {}),
      };
      accepted.push(name);
    }
  }
  return { accepted, refused, wanted };
}
