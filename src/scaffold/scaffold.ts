/**
 * `patchbay plugin new`: copies `templates/<kind>/` into `<parent>/<name>/` and fills in the
 * placeholders. Any folder under templates/ whose name is a kind is a template, so a kind gains
 * `plugin new` support by adding its folder, without touching this file.
 *
 * Never writes into anything that exists: the plugin folder is created with a non-recursive
 * mkdir (which fails on an existing file, folder or symlink, so two racing runs cannot both
 * win), and a copy that fails half-way removes the folder it created.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  chmodSync,
} from "node:fs";
import path from "node:path";
import { pbError } from "../errors.js";
import { isKind, KINDS, SECTION_OF_KIND, type Kind, type Section } from "../contract/kinds.js";
import { PLUGIN_API_VERSION } from "../contract/api-version.js";
import { packageRoot } from "../paths.js";
import { assertPluginName } from "./names.js";
import { patchbayTypePaths } from "./root-tsconfig.js";

/** Files whose text gets placeholders filled; anything else is copied byte for byte. */
const TEXT_EXTENSIONS = new Set([
  ".ts",
  ".mts",
  ".cts",
  ".js",
  ".mjs",
  ".cjs",
  ".json",
  ".md",
  ".txt",
  ".yaml",
  ".yml",
  ".toml",
  ".gitignore",
]);
/** Never copied: build output and state an author's run of the template may have left behind. */
const SKIPPED = new Set(["node_modules", "dist", ".patchbay", ".DS_Store"]);

export function templatesDir(): string {
  return path.join(packageRoot(), "templates");
}

/** The kinds this Patchbay has a template for, in KINDS order. */
export function templateKinds(root = templatesDir()): Kind[] {
  return KINDS.filter((k) => existsSync(path.join(root, k, "plugin.json")));
}

export interface ScaffoldOptions {
  kind: string;
  name: string;
  /** The folder the plugin folder is created in (created too when missing). */
  parentDir: string;
  /** Where templates live; tests point it elsewhere. Default: Patchbay's templates/. */
  templatesRoot?: string;
}

export interface ScaffoldResult {
  kind: Kind;
  name: string;
  section: Section;
  /** Absolute path of the new plugin folder. */
  dir: string;
  /** Files written, relative to `dir`, with "/" separators, sorted. */
  files: string[];
}

export function scaffoldPlugin(opts: ScaffoldOptions): ScaffoldResult {
  const root = opts.templatesRoot ?? templatesDir();
  const available = templateKinds(root);
  if (!isKind(opts.kind) || !available.includes(opts.kind)) {
    const known = isKind(opts.kind)
      ? `Kind "${opts.kind}" has no template in this Patchbay yet`
      : `Unknown kind ${JSON.stringify(opts.kind)}`;
    throw pbError("PB_ERR_SCAFFOLD_KIND", `${known}. Kinds with a template: ${available.join(", ")}.`, {
      kind: opts.kind,
      kinds: available,
    });
  }
  const kind = opts.kind;
  assertPluginName(opts.name);

  const parent = path.resolve(opts.parentDir);
  const dir = path.join(parent, opts.name);
  makeFolders(parent);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      throw pbError(
        "PB_ERR_SCAFFOLD_EXISTS",
        `${dir} already exists; plugin new never writes into an existing folder.`,
        { dir, name: opts.name },
      );
    }
    throw err;
  }

  const values = placeholders(kind, opts.name, dir);
  const files: string[] = [];
  try {
    copyTree(path.join(root, kind), dir, "", values, files);
  } catch (err) {
    // The folder is ours (mkdir above succeeded), so removing it restores the state before the run.
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return { kind, name: opts.name, section: SECTION_OF_KIND[kind], dir, files: files.sort() };
}

/**
 * `--dir` and the folders above it that are missing, made one level at a time: Node 20's recursive
 * mkdirSync spins for ever under /proc, and a path through a file (or a folder that cannot be made)
 * is the user's to fix, said with the path, not an internal error.
 */
function makeFolders(parent: string): void {
  const missing: string[] = [];
  for (let at = parent; ; at = path.dirname(at)) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || path.dirname(at) === at) throw cannotMake(parent, err);
      missing.push(at);
      continue;
    }
    if (!isDir)
      throw pbError(
        "PB_ERR_SCAFFOLD_EXISTS",
        `${at} is a file, so ${parent} cannot be a folder: --dir names the folder the plugin's folder is created in.`,
        { dir: parent },
        "Nothing was changed. Pass --dir a folder (or a path to one that does not exist yet).",
      );
    break;
  }
  for (const dir of missing.reverse())
    try {
      mkdirSync(dir);
    } catch (err) {
      throw cannotMake(parent, err);
    }
}

function cannotMake(parent: string, err: unknown) {
  const code = (err as NodeJS.ErrnoException).code ?? "error";
  return pbError(
    "PB_ERR_USAGE",
    `Cannot create the folder ${parent} (${code}).`,
    { dir: parent, flag: "dir" },
    "Pass --dir a folder you can write to.",
  );
}

/** Every `__KEY__` a template may use. Templates are checked by tests for anything else left over. */
export function placeholders(kind: Kind, name: string, dir: string): Record<string, string> {
  const rel = (...to: string[]): string =>
    path
      .relative(dir, path.join(packageRoot(), ...to))
      .split(path.sep)
      .join("/");
  const schema = rel("schemas", "plugin.schema.json");
  // The package is patchbay-host, so "patchbay/plugin" cannot resolve by name from node_modules:
  // the folder's tsconfig maps it to this Patchbay's types, relative so the project can move.
  const types = patchbayTypePaths(dir);
  return {
    __PLUGIN_TYPES__: types["patchbay/plugin"][0],
    __ADAPTER_TYPES__: types["patchbay/adapter"][0],
    __TESTING_TYPES__: types["patchbay/testing"][0],
    __NAME__: name,
    __KIND__: kind,
    __SECTION__: SECTION_OF_KIND[kind],
    __API_RANGE__: `^${PLUGIN_API_VERSION.split(".")[0]}`,
    __SCHEMA__: schema,
  };
}

export function fill(text: string, values: Record<string, string>): string {
  return text.replace(/__[A-Z][A-Z_]*__/g, (key) => (Object.hasOwn(values, key) ? values[key] : key));
}

function copyTree(from: string, to: string, rel: string, values: Record<string, string>, files: string[]): void {
  for (const entry of readdirSync(from, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (SKIPPED.has(entry.name)) continue;
    const source = path.join(from, entry.name);
    const targetName = fill(entry.name, values);
    const target = path.join(to, targetName);
    const relTarget = rel ? `${rel}/${targetName}` : targetName;
    if (entry.isDirectory()) {
      mkdirSync(target);
      copyTree(source, target, relTarget, values, files);
      continue;
    }
    if (!entry.isFile()) continue; // symlinks in a template would point into Patchbay's own folder
    const ext = path.extname(entry.name) || entry.name;
    if (TEXT_EXTENSIONS.has(ext)) writeFileSync(target, fill(readFileSync(source, "utf8"), values), { flag: "wx" });
    else copyFileSync(source, target);
    chmodSync(target, statSync(source).mode & 0o777);
    files.push(relTarget);
  }
}
