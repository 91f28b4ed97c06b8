/**
 * Where in the plugin's own source an error happened, carried across the boundary as plain data:
 * a load error's file:line:column with a code frame (a syntax error, a throw at module top level),
 * and a thrown error's stack cut to the plugin's frames. Frames point into the plugin's `.ts`:
 * jiti writes an inline source map for what it transpiles and Node maps stack traces through it
 * (process.setSourceMapsEnabled), so no source-map library is needed.
 *
 * Paths stay absolute here; the CLI shows them relative to the working folder (cli/stack.ts).
 */
import { readFileSync, realpathSync } from "node:fs";
import path from "node:path";

export interface SourceLocation {
  file: string;
  line: number;
  column: number;
  /** A few lines of the file around the location, the column marked with a caret. */
  frame: string | null;
}

/** The most frames a plugin stack keeps: enough to see the call path, never a wall of text. */
const MAX_FRAMES = 12;

/** Turns on stack-trace source mapping for this thread (or child): plugin frames then name their .ts lines. */
export function enableSourceMaps(): void {
  (process as { setSourceMapsEnabled?: (on: boolean) => void }).setSourceMapsEnabled?.(true);
}

/**
 * The plugin folder as given and as it really is: `plugin test` links the folder into a private
 * plugins folder, and jiti reports the real path, so both must count as "inside the plugin".
 */
function roots(dir: string): string[] {
  try {
    const real = realpathSync(dir);
    return real === dir ? [dir] : [dir, real];
  } catch {
    return [dir];
  }
}

function relativeIn(dir: string, file: string): string | null {
  for (const root of roots(dir)) {
    const rel = path.relative(root, file);
    if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel;
  }
  return null;
}

const inside = (dir: string, file: string): boolean => relativeIn(dir, file) !== null;

/** `src/index.ts` for a file in the plugin folder (through its symlink or not), else the path as given. */
export function pluginRelative(dir: string, file: string): string {
  return relativeIn(dir, file) ?? file;
}

/** `file:line:column` positions in a text (jiti's "ParseError: ...\n /abs/file.ts:3:17", or stack frames). */
function positions(text: string): { file: string; line: number; column: number }[] {
  const out: { file: string; line: number; column: number }[] = [];
  for (const m of text.matchAll(/(?:file:\/\/)?((?:[A-Za-z]:)?[/\\][^\s():]+):(\d+):(\d+)/g))
    out.push({ file: m[1], line: Number(m[2]), column: Number(m[3]) });
  return out;
}

function codeFrame(file: string, line: number, column: number, context = 2): string | null {
  let lines: string[];
  try {
    lines = readFileSync(file, "utf8").split(/\r?\n/);
  } catch {
    return null;
  }
  if (line < 1 || line > lines.length) return null;
  const from = Math.max(1, line - context);
  const to = Math.min(lines.length, line + 1);
  const width = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n++) {
    const text = lines[n - 1].length > 200 ? lines[n - 1].slice(0, 200) + "…" : lines[n - 1];
    out.push(`${n === line ? ">" : " "} ${String(n).padStart(width)} | ${text}`);
    if (n === line) out.push(`  ${" ".repeat(width)} | ${" ".repeat(Math.max(0, column - 1))}^`);
  }
  return out.join("\n");
}

/** The first location inside the plugin folder that `err` names (its message, then its stack), with a code frame. */
export function locate(err: unknown, pluginDir: string): SourceLocation | null {
  const text = err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err);
  const at = positions(text).find((p) => inside(pluginDir, p.file));
  return at ? { ...at, frame: codeFrame(at.file, at.line, at.column) } : null;
}

/** The error's message without the location lines jiti appends to it. */
export function reasonOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return (text.split("\n")[0] ?? text).replace(/^(?:Error: )?ParseError: /, "SyntaxError: ").trim();
}

/**
 * The stack of a plugin's thrown error, kept to the frames in the plugin's folder (mapped to its
 * .ts) and the error line itself: the host's own frames say nothing about the plugin's bug.
 */
export function pluginStack(err: unknown, pluginDir: string): string | null {
  if (!(err instanceof Error) || typeof err.stack !== "string") return null;
  const [head, ...frames] = err.stack.split("\n");
  const own = frames
    .filter((f) => /^\s+at /.test(f) && positions(f).some((p) => inside(pluginDir, p.file)))
    .slice(0, MAX_FRAMES);
  return own.length > 0 ? [head, ...own.map((f) => `    ${f.trim()}`)].join("\n") : null;
}
