/**
 * The TypeScript files of src/ as the source-shape tests read them (import circles, comment width,
 * file length): path relative to src/ with "/" separators, sorted, mapped to its text.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./helpers.js";

export const SRC = path.join(ROOT, "src");

export function srcFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const rel of (readdirSync(SRC, { recursive: true }) as string[]).sort()) {
    if (rel.endsWith(".ts")) files.set(rel.split(path.sep).join("/"), readFileSync(path.join(SRC, rel), "utf8"));
  }
  return files;
}
