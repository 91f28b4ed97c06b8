/**
 * Finding and reading connectors.json.
 *
 * Discovery order (first match wins):
 *   1. an explicit path (`--config FILE`, createHost({config})), relative to cwd;
 *   2. the PATCHBAY_CONFIG environment variable, relative to cwd;
 *   3. `connectors.json` in cwd, then each parent folder, stopping after the first folder that
 *      holds a `.git` (the project root) or at the filesystem root.
 * An explicit path or PATCHBAY_CONFIG that does not exist is an error: falling back to a
 * search would boot a config the user did not ask for.
 *
 * Why not cosmiconfig for the walk: cosmiconfig 9 cannot be told to ignore its meta config
 * (a `cosmiconfig` key in package.json or `.config/config.*` in process.cwd(), read, and for
 * .js/.ts executed, on every cosmiconfig() call), with searchStrategy "global" it falls back to
 * ~/.config/connectors/config.{json,yaml,js,ts,...} when nothing is found, and it merges
 * `$import` keys. Each would make which file boots depend on something other than this order.
 */
import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pbError } from "../errors.js";
import { jsonErrorOffset, lineColumn } from "./json-position.js";

const CONFIG_FILE_NAME = "connectors.json";
const CONFIG_ENV_VAR = "PATCHBAY_CONFIG";

export type ConfigVia = "option" | "env" | "search";

export interface ConfigLocation {
  /** Absolute path of the file. */
  file: string;
  /** Which rule of the discovery order found it. */
  via: ConfigVia;
}

export interface ResolveConfigPathOptions {
  config?: string;
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/** Applies the discovery order above; throws PB_ERR_CONFIG_NOT_FOUND naming where it looked. */
export function resolveConfigPath(opts: ResolveConfigPathOptions = {}): ConfigLocation {
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const env = opts.env ?? process.env;
  if (opts.config !== undefined) {
    return { file: requireFile(path.resolve(cwd, opts.config), `--config ${opts.config}`), via: "option" };
  }
  const fromEnv = env[CONFIG_ENV_VAR];
  if (fromEnv) {
    return { file: requireFile(path.resolve(cwd, fromEnv), `${CONFIG_ENV_VAR}=${fromEnv}`), via: "env" };
  }
  const searched: string[] = [];
  for (let dir = cwd; ; ) {
    searched.push(dir);
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    if (isFile(candidate)) return { file: candidate, via: "search" };
    const parent = path.dirname(dir);
    if (existsSync(path.join(dir, ".git")) || parent === dir) break;
    dir = parent;
  }
  const last = searched[searched.length - 1];
  const range = searched.length === 1 ? last : `${cwd} and its parents up to ${last}`;
  throw pbError(
    "PB_ERR_CONFIG_NOT_FOUND",
    `No ${CONFIG_FILE_NAME} found in ${range}, and ${CONFIG_ENV_VAR} is not set.`,
    {
      file: null,
      searched,
    },
  );
}

function requireFile(file: string, given: string): string {
  if (isFile(file)) return file;
  const why = existsSync(file) ? "is not a file" : "does not exist";
  throw pbError("PB_ERR_CONFIG_NOT_FOUND", `${given}: ${file} ${why}.`, { file, searched: [file] });
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Read and JSON.parse the file. A syntax error becomes PB_ERR_CONFIG_PARSE with line:column;
 * V8's own quote of the surrounding text is dropped (the file may hold values worth not echoing).
 */
export async function readConfigFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    throw pbError("PB_ERR_CONFIG_NOT_FOUND", `Cannot read ${file} (${code}).`, { file, searched: [file] });
  }
  return parseConfigText(text, file);
}

export function parseConfigText(text: string, file: string | null): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // editors on Windows add a BOM
  try {
    return JSON.parse(body);
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const reported = /at position (\d+)/.exec(raw);
    const offset = reported ? Number(reported[1]) : jsonErrorOffset(body);
    const { line, column } = lineColumn(body, offset);
    // V8 quotes the text around the error (`, "…" is not valid JSON`, or `, ..."…"... is not
    // valid JSON` in a long file): a secret may be in it, so only the reason before it is kept.
    const reason = raw
      .replace(/, (\.\.\.)?".*$/s, "")
      .replace(/ in JSON at position \d+.*$/s, "")
      .replace(/ at position \d+.*$/s, "");
    const where = file ?? "connectors.json";
    // SPEC's examples are annotated jsonc; the file itself is plain JSON.
    const lineText = body.split("\n")[line - 1] ?? "";
    const comment = /(^|\s)(\/\/|\/\*)/.test(lineText)
      ? ' (comments are not allowed in connectors.json: use a "_comment" key instead)'
      : "";
    return fail(`${where}:${line}:${column}: not valid JSON: ${reason}${comment}`, { file, line, column });
  }
}

function fail(message: string, data: Record<string, unknown>): never {
  throw pbError("PB_ERR_CONFIG_PARSE", message, data);
}
