/**
 * What the pins found about one definition, and the error a call of a withheld one gets: what and why,
 * naming what changed by JSON pointer, never the new text itself.
 */
import { pbError, type PatchbayError } from "../../errors.js";
import type { HiddenTextFinding } from "./hidden-text.js";
import type { PinList } from "./lock-file.js";

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

export function hiddenSummary(hidden: HiddenTextFinding[]): string {
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
