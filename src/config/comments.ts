/**
 * `_` keys are comments in connectors.json. They are removed before env resolution and schema
 * validation, except inside an instance's `config` and `identity`: those objects belong to the
 * plugin, which may use `_` keys of its own, so they pass through untouched.
 */
import { isSection } from "../contract/kinds.js";

/** Plugin-owned objects inside an instance: never stripped. */
const PLUGIN_OWNED = new Set(["config", "identity"]);

function isCommentKey(key: string): boolean {
  return key.startsWith("_");
}

/** A copy of `value` without comment keys; plugin-owned objects are kept as they are. */
export function stripComments(value: unknown): unknown {
  return strip(value, []);
}

function strip(value: unknown, path: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item, i) => strip(item, [...path, String(i)]));
  if (!isPlainObject(value)) return value;
  if (isPluginOwned(path)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (isCommentKey(key)) continue;
    // defineProperty, not assignment: a "__proto__" key must stay data, never become a prototype.
    Object.defineProperty(out, key, {
      value: strip(value[key], [...path, key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** `/<section>/<name>/config` and `/<section>/<name>/identity`. */
function isPluginOwned(path: readonly string[]): boolean {
  return path.length === 3 && isSection(path[0]) && PLUGIN_OWNED.has(path[2]);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
