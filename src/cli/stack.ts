/**
 * Paths in what the CLI prints, as a user reads them: a path inside the working folder becomes
 * relative to it (`plugins/x/src/index.ts:3:17`); one outside stays absolute, since a chain of
 * `../../..` says less than the path itself.
 */
import path from "node:path";

export function shownPath(file: string, cwd = process.cwd()): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : file;
}

/** Every absolute path in `text` (stack frames, messages) shown as shownPath() would. */
export function relativePaths(text: string, cwd = process.cwd()): string {
  const root = cwd.endsWith(path.sep) ? cwd : cwd + path.sep;
  return text.split(`file://${root}`).join("").split(root).join("");
}
