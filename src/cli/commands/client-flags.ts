/**
 * The flags of `patchbay client add`, read into what connectors.json holds. --expose takes the
 * instances a person types in one word each, `section/name` (all of it) or `section/name=a,b*`
 * (those methods, or for an mcp connector those tools and globs), separated by spaces; or the JSON
 * object itself, for scripts.
 */
import { SECTIONS } from "../../contract/kinds.js";
import { pbError } from "../../errors.js";
import { flagString, type ParsedArgs } from "../args.js";

type Expose = Record<string, boolean | string[]>;

const INSTANCE = /^([A-Za-z][A-Za-z0-9]*)\/([A-Za-z0-9._-]+)$/;

/** What --expose names; without it, every instance the file declares (the whole gateway-level expose). */
export function parseExposeFlag(spec: string | undefined, doc: Record<string, unknown>): Expose {
  if (spec === undefined) return everyInstance(doc);
  const text = spec.trim();
  if (text.startsWith("{")) return fromJson(text);
  const out: Expose = {};
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const [instance, names] = splitOnce(word, "=");
    if (!INSTANCE.test(instance)) throw badExpose(`"${instance.slice(0, 80)}" is not an instance ("section/name")`);
    out[instance] = names === undefined ? true : names.split(",").filter(Boolean);
  }
  if (Object.keys(out).length === 0) throw badExpose("it names no instance");
  return out;
}

/** A positive whole number, or undefined when the flag is absent. */
export function parseLimit(args: ParsedArgs, flag: string): number | undefined {
  const raw = flagString(args, flag);
  if (raw === undefined) return undefined;
  if (!/^[1-9][0-9]{0,8}$/.test(raw))
    throw pbError("PB_ERR_USAGE", `--${flag} takes a positive whole number (got "${raw.slice(0, 40)}").`, { flag });
  return Number(raw);
}

function everyInstance(doc: Record<string, unknown>): Expose {
  const out: Expose = {};
  for (const section of SECTIONS) {
    const instances = doc[section];
    if (!instances || typeof instances !== "object") continue;
    for (const name of Object.keys(instances)) if (!name.startsWith("_")) out[`${section}/${name}`] = true;
  }
  return out;
}

function fromJson(text: string): Expose {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badExpose("it starts with { but is not valid JSON");
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw badExpose("it is not a JSON object");
  return value as Expose; // the whole file is validated (checkAndWrite) before it is written
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

function badExpose(why: string) {
  return pbError(
    "PB_ERR_USAGE",
    `--expose is not understood: ${why}.`,
    { flag: "expose" },
    'Name instances separated by spaces, e.g. --expose "mcpConnectors/github=search_*,get_issue memoryStores/primary", or give the JSON object.',
  );
}
