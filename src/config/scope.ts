/**
 * Scoping config problems to the instance they are in. A missing ${VAR} or a bad key inside one
 * instance's entry blocks that instance (and, in the host, what is granted it), not the whole
 * file: `list`, `call` of another instance and `doctor` keep working and say what is wrong where.
 * A problem outside every instance (defaults, plugins, an alias, the file's shape) still fails
 * the whole load, as before.
 */
import { SECTIONS } from "../contract/kinds.js";
import { pbError, PatchbayError, toWire, type ErrorCode, type WireError } from "../errors.js";
import { FORBIDDEN_KEYS } from "./env.js";
import type { ConfigIssue } from "./issues.js";
import type { ResolvedConfig } from "./types.js";

/** One failed stage of the load: what issuesError() turns into an error. */
export interface Stage {
  code: ErrorCode;
  headline: string;
  issues: ConfigIssue[];
  extra?: (issues: ConfigIssue[]) => Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function unescapePointer(seg: string): string {
  return seg.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** "memoryStores/primary" when `pointer` is inside that instance's entry (an object), else null. */
function instanceAt(value: unknown, pointer: string): string | null {
  const [section, name] = pointer.split("/").slice(1).map(unescapePointer);
  if (!section || name === undefined || !(SECTIONS as readonly string[]).includes(section)) return null;
  // A name that cannot be an instance id ("a/b" would read as another path), that names
  // Object.prototype ("__proto__" would be swallowed by the stand-in copy) or is a forbidden key
  // blocks the whole file, with its pointer, rather than one instance.
  if (name.includes("/") || name in Object.prototype || FORBIDDEN_KEYS.has(name)) return null;
  const entries = isObject(value) ? value[section] : undefined;
  return isObject(entries) && isObject(entries[name]) ? `${section}/${name}` : null;
}

/** Splits every stage's issues into the instances they are in; null when any issue is outside all instances. */
export function byInstance(value: unknown, stages: readonly Stage[]): Map<string, Stage[]> | null {
  const out = new Map<string, Stage[]>();
  for (const stage of stages) {
    for (const issue of stage.issues) {
      const id = instanceAt(value, issue.pointer);
      if (!id) return null;
      const list = out.get(id) ?? [];
      const same = list.find((s) => s.code === stage.code && s.headline === stage.headline);
      if (same) same.issues.push(issue);
      else list.push({ ...stage, issues: [issue] });
      out.set(id, list);
    }
  }
  return out;
}

/**
 * A copy of `value` where each blocked instance is a stand-in the schema accepts: its plugin and
 * `required` kept (when they are well-formed) so listings and the boot report still name them.
 */
export function withStandIns(value: Record<string, unknown>, ids: Iterable<string>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  for (const id of ids) {
    const [section, name] = id.split("/");
    const entries = { ...(copy[section] as Record<string, unknown>) };
    const entry = entries[name] as Record<string, unknown>;
    entries[name] = {
      plugin: typeof entry.plugin === "string" && entry.plugin ? entry.plugin : "(invalid)",
      ...(typeof entry.required === "boolean" ? { required: entry.required } : {}),
    };
    copy[section] = entries;
  }
  return copy;
}

const indexes = new WeakMap<ResolvedConfig, Map<string, ResolvedConfig["instances"][number]>>();

/** An instance of a (frozen) resolved config by id, through an index built once per config. */
export function instanceById(config: ResolvedConfig, id: string): ResolvedConfig["instances"][number] | undefined {
  let index = indexes.get(config);
  if (!index) indexes.set(config, (index = new Map(config.instances.map((i) => [i.id, i]))));
  return index.get(id);
}

/**
 * Why an instance cannot start because of config: its own problems, or a granted instance's
 * (transitively), so an instance never boots only to fail calling what it requires.
 */
export function blockedBy(id: string, config: ResolvedConfig, seen = new Set<string>()): WireError | null {
  const own = config.blocked[id];
  if (own) return { ...own, data: { ...own.data, instance: id } };
  seen.add(id);
  const inst = instanceById(config, id);
  for (const g of inst?.grants ?? []) {
    const target = config.aliases[g] ?? g;
    if (seen.has(target)) continue;
    const cause = blockedBy(target, config, seen);
    if (cause) {
      return toWire(
        pbError(
          "PB_ERR_INSTANCE_UNAVAILABLE",
          `${id} is granted ${target}, which cannot start: [${cause.code}] ${cause.message}`,
          { instance: id, requires: target, cause: cause.code, exit: new PatchbayError(cause.code, "").exitCode },
          `Fix ${target} first: ${cause.hint}`,
        ),
      );
    }
  }
  return null;
}
