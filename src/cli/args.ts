/**
 * A small argv parser for the CLI contract: a command path, positionals, and the flags each
 * command accepts. `--config F` is accepted anywhere on the line; unknown flags are usage errors.
 */
import { pbError } from "../errors.js";

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean>;
}

/** Flags that take a value; every other flag is a boolean. */
const VALUE_FLAGS = new Set(["config", "dir", "timeout", "timeout-ms", "message", "client", "host", "port"]);
const BOOLEAN_FLAGS = new Set(["json", "verbose", "help", "version", "dry-run", "force", "live", "mcp", "http", "watch"]);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h") {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (VALUE_FLAGS.has(name)) {
      const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value === "") throw pbError("PB_ERR_USAGE", `--${name} needs a value.`, { flag: name });
      flags[name] = value;
    } else if (BOOLEAN_FLAGS.has(name)) {
      if (eq !== -1) throw pbError("PB_ERR_USAGE", `--${name} takes no value.`, { flag: name });
      flags[name] = true;
    } else {
      throw pbError("PB_ERR_USAGE", `Unknown flag --${name}.`, { flag: name });
    }
  }
  return { positionals, flags };
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === "string" ? v : undefined;
}

/** Refuses flags a command does not take, so a typo is never silently ignored. */
export function allowFlags(args: ParsedArgs, command: string, allowed: readonly string[]): void {
  for (const name of Object.keys(args.flags)) {
    if (!allowed.includes(name) && !["verbose", "help", "config"].includes(name)) {
      throw pbError("PB_ERR_USAGE", `patchbay ${command} does not take --${name}.`, { flag: name, command });
    }
  }
}
