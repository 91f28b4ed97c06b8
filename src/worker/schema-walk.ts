/**
 * Walks a plugin's zod config schema next to a parsed value and reports every string held by a
 * field marked with `.meta({ secret: true })` or `.meta({ path: true })`. Uses only the schema's
 * own methods and `_zod.def`, because the plugin may have loaded its own copy of zod.
 */

interface ZodLike {
  _zod?: { def?: Record<string, unknown> & { type?: string } };
  meta?: () => Record<string, unknown> | undefined;
}

export interface MarkedField {
  marks: { secret: boolean; path: boolean };
  value: unknown;
  /** Replaces the value in the parsed object (used to resolve relative paths). */
  set(next: unknown): void;
}

const WRAPPERS = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "readonly",
  "catch",
  "nonoptional",
  "success",
]);

export function walkMarkedFields(schema: unknown, value: unknown, visit: (field: MarkedField) => void): void {
  walk(schema as ZodLike, value, { secret: false, path: false }, (next) => void next, visit, 0);
}

function walk(
  schema: ZodLike | undefined,
  value: unknown,
  inherited: { secret: boolean; path: boolean },
  set: (next: unknown) => void,
  visit: (field: MarkedField) => void,
  depth: number,
): void {
  if (!schema || depth > 64 || value === undefined) return;
  const meta = safeMeta(schema);
  const marks = { secret: inherited.secret || meta?.secret === true, path: inherited.path || meta?.path === true };
  const def = schema._zod?.def;
  const type = def?.type;
  if (!def || !type) return;

  if (WRAPPERS.has(type)) return walk(def.innerType as ZodLike, value, marks, set, visit, depth + 1);
  if (type === "pipe") return walk(def.in as ZodLike, value, marks, set, visit, depth + 1);
  if (type === "lazy") return walk((def.getter as () => ZodLike)(), value, marks, set, visit, depth + 1);

  if (typeof value === "string") {
    if (marks.secret || marks.path) visit({ marks, value, set });
    return;
  }
  if (type === "object" && value && typeof value === "object" && !Array.isArray(value)) {
    const shape = def.shape as Record<string, ZodLike>;
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const child = Object.hasOwn(shape, key) ? shape[key] : (def.catchall as ZodLike | undefined);
      walk(child, obj[key], marks, (next) => (obj[key] = next), visit, depth + 1);
    }
    return;
  }
  if (type === "record" && value && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj))
      walk(def.valueType as ZodLike, obj[key], marks, (next) => (obj[key] = next), visit, depth + 1);
    return;
  }
  if (type === "array" && Array.isArray(value)) {
    value.forEach((item, i) => {
      walk(def.element as ZodLike, item, marks, (next) => (value[i] = next), visit, depth + 1);
    });
    return;
  }
  if (type === "union") {
    // Marks on any branch apply: a secret in one shape of a union is a secret.
    for (const option of def.options as ZodLike[]) walk(option, value, marks, set, visit, depth + 1);
    return;
  }
  if (type === "intersection") {
    walk(def.left as ZodLike, value, marks, set, visit, depth + 1);
    walk(def.right as ZodLike, value, marks, set, visit, depth + 1);
  }
}

function safeMeta(schema: ZodLike): Record<string, unknown> | undefined {
  try {
    return typeof schema.meta === "function" ? schema.meta() : undefined;
  } catch {
    return undefined;
  }
}
