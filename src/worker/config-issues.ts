/**
 * A plugin's config issues as the user should read them: the field, the message, and for an
 * unknown key the declared key it most likely meant (`pth` → `path`), read from the plugin's own
 * zod object at that path. Runs in the worker, where the schema is.
 */
import { suggest } from "../contract/suggest.js";

export interface ConfigIssueLike {
  path: PropertyKey[];
  message: string;
  code?: string;
  keys?: string[];
}

interface SchemaLike {
  _zod?: { def?: { shape?: Record<string, unknown>; innerType?: unknown; type?: string } };
}

/** The keys an object schema declares at `at` (through optional/default/nullable wrappers), or []. */
function keysAt(schema: unknown, at: PropertyKey[]): string[] {
  let node = schema as SchemaLike | undefined;
  const unwrap = (): void => {
    while (node?._zod?.def?.innerType && !node._zod.def.shape) node = node._zod.def.innerType as SchemaLike;
  };
  unwrap();
  for (const key of at) {
    node = node?._zod?.def?.shape?.[String(key)] as SchemaLike | undefined;
    unwrap();
  }
  return Object.keys(node?._zod?.def?.shape ?? {});
}

export function describeConfigIssues(
  schema: unknown,
  issues: readonly ConfigIssueLike[],
): { field: string; message: string }[] {
  return issues.map((i) => {
    const field = i.path.map(String).join(".");
    if (i.code !== "unrecognized_keys" || !Array.isArray(i.keys)) return { field, message: i.message };
    const known = keysAt(schema, i.path);
    const hints = i.keys.map((k) => {
      const close = suggest(k, known);
      return close ? `"${k}" (did you mean "${close}"?)` : `"${k}"`;
    });
    return {
      field,
      message: `Unrecognized key${i.keys.length > 1 ? "s" : ""}: ${hints.join(", ")}${known.length ? `. Allowed: ${known.join(", ")}.` : ""}`,
    };
  });
}
