/**
 * A limit on nesting: JSON.parse reads 100,000 levels happily, but every later stage
 * (comments, ${VAR}, the schema) walks the value recursively and would die of a stack overflow,
 * which surfaced as PB_ERR_INTERNAL. Measured iteratively, before any recursive stage runs.
 */
import { pbError } from "../errors.js";

export const MAX_CONFIG_DEPTH = 1_000;

/**
 * Throws PB_ERR_CONFIG_TOO_DEEP, with the pointer of the first too-deep value, when `raw` nests
 * deeper than the limit.
 */
export function assertConfigDepth(raw: unknown, file: string | null): void {
  const stack: [unknown, number, string][] = [[raw, 0, ""]];
  while (stack.length > 0) {
    const [value, depth, pointer] = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_CONFIG_DEPTH) {
      const shown = pointer.length > 120 ? `${pointer.slice(0, 120)}…` : pointer;
      throw pbError(
        "PB_ERR_CONFIG_TOO_DEEP",
        `${file ?? "The config"} nests deeper than ${MAX_CONFIG_DEPTH} levels (at ${shown}).`,
        { file, pointer: shown, max_depth: MAX_CONFIG_DEPTH },
      );
    }
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === "object" && v !== null)
        stack.push([v, depth + 1, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`]);
    }
  }
}
