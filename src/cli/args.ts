/**
 * The command line → a declared command, its positionals and its flags. Flags come from the
 * command's own declaration (commands.ts) plus the global ones, so a flag no command declares is
 * a usage error with a "did you mean", never silently ignored. `--config F` is accepted anywhere.
 *
 * Tokenising is node:util's parseArgs (no dependency, the same rules every Node CLI user knows);
 * the checks are ours, so each message names the flag and the command.
 */
import { parseArgs as tokenize } from "node:util";
import { pbError } from "../errors.js";
import { suggest } from "../config/suggest.js";
import { COMMANDS, GLOBAL_FLAGS, findCommand, type CommandDecl, type FlagDecl, type ParsedArgs } from "./commands.js";

export type { ParsedArgs };

export interface CommandLine extends ParsedArgs {
  /** The declared command, or null when the words name none (main.ts explains). */
  decl: CommandDecl | null;
  /** The command words as typed (before the positionals). */
  words: string[];
}

/** Only at the top: `patchbay --version`. */
const TOP_FLAGS: Record<string, FlagDecl> = {
  ...GLOBAL_FLAGS,
  version: { type: "boolean", help: "print Patchbay's version and its plugin API version" },
};

/** The words before any flag that names the command; --config's value is never one of them. */
function commandWords(argv: readonly string[]): { words: string[]; at: number[] } {
  const words: string[] = [];
  const at: number[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a === "--config") i++;
    else if (!a.startsWith("-")) {
      words.push(a);
      at.push(i);
      // Only a group word (`plugin`, `adapter`, `help`) takes a second word.
      if (!COMMANDS.some((c) => c.name.startsWith(a + " ")) && a !== "help") break;
    }
  }
  return { words, at };
}

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const { words, at } = commandWords(argv);
  const found = findCommand(words);
  const used = found ? found.used : 0;
  const rest = argv.filter((_, i) => !at.slice(0, used).includes(i));
  const options = found ? { ...GLOBAL_FLAGS, ...found.decl.flags } : TOP_FLAGS;
  const parsed = parseFlags(rest, options, found?.decl ?? null);
  return { decl: found?.decl ?? null, words: words.slice(0, found ? used : words.length), ...parsed };
}

/** Parses `argv` against `options`; throws PB_ERR_USAGE naming the flag (and the closest declared one). */
export function parseFlags(
  argv: readonly string[],
  options: Record<string, FlagDecl>,
  decl: CommandDecl | null,
): ParsedArgs {
  const nodeOptions = Object.fromEntries(
    Object.entries(options).map(([k, f]) => [k, { type: f.type, ...(f.short ? { short: f.short } : {}) }]),
  );
  const { tokens } = tokenize({
    args: [...argv],
    options: nodeOptions,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const positionals: string[] = [];
  const flags: Record<string, string | boolean> = {};
  const where = decl ? `patchbay ${decl.name}` : "patchbay";
  const seen = new Set<number>();
  for (const t of tokens) {
    if (t.kind === "positional") positionals.push(t.value);
    if (t.kind !== "option") continue;
    // A negative number is an argument (`call x add -1`), not a short flag.
    if (/^-\d/.test(argv[t.index])) {
      if (!seen.has(t.index)) positionals.push(argv[t.index]);
      seen.add(t.index);
      continue;
    }
    const flag = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (!flag) {
      // The hook runner must fail open on any command line, so it ignores what it does not know.
      if (decl?.lenient) continue;
      throw unknownFlag(t.rawName, Object.keys(options), where);
    }
    if (flag.type === "boolean") {
      if (t.value !== undefined)
        throw pbError("PB_ERR_USAGE", `${t.rawName} takes no value (got "${t.value}").`, { flag: t.name });
      flags[t.name] = true;
    } else {
      if (t.value === undefined || t.value === "" || (!t.inlineValue && t.value.startsWith("--"))) {
        throw pbError(
          "PB_ERR_USAGE",
          `--${t.name} needs a value: --${t.name} ${flag.value ?? "VALUE"}.`,
          { flag: t.name },
          `Run \`${where} --help\` for its flags.`,
        );
      }
      flags[t.name] = t.value;
    }
  }
  return { positionals, flags };
}

function unknownFlag(raw: string, known: string[], where: string) {
  const name = raw.replace(/^-+/, "");
  const close = suggest(name, known);
  const list = known.map((k) => `--${k}`).join(", ");
  return pbError(
    "PB_ERR_USAGE",
    `${where} does not take ${raw}.${close ? ` Did you mean --${close}?` : ""} It takes ${list}.`,
    { flag: name, ...(close ? { suggestion: close } : {}) },
    `Run \`${where} --help\` for its flags and examples.`,
  );
}

/**
 * The union of every command's flags, parsed loosely: for tools that check a command line in the
 * docs without running it. The CLI itself always parses against one command (parseCommandLine).
 */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const all: Record<string, FlagDecl> = { ...TOP_FLAGS };
  for (const c of COMMANDS) Object.assign(all, c.flags);
  return parseFlags(argv, all, null);
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === "string" ? v : undefined;
}

/**
 * Kept for commands that check their own flags: the parser already refuses what a command does
 * not declare, so this only matters for a command run with hand-built ParsedArgs.
 */
export function allowFlags(args: ParsedArgs, command: string, allowed: readonly string[]): void {
  for (const name of Object.keys(args.flags)) {
    if (!allowed.includes(name) && !Object.hasOwn(GLOBAL_FLAGS, name)) {
      throw pbError("PB_ERR_USAGE", `patchbay ${command} does not take --${name}.`, { flag: name, command });
    }
  }
}
