/**
 * The shapes the command table (commands.ts), the parser (args.ts), help and every command share:
 * a parsed command line, a command, a declaration and its flags. Types only, so a command can name
 * them without importing the table.
 */
import type { ExitCode } from "../errors.js";
import type { Output } from "./render.js";

/** A command line as a command receives it (args.ts produces it from argv and this table). */
export interface ParsedArgs {
  positionals: string[];
  /** Keyed by long flag name: a string for a flag with a value, true for a switch. */
  flags: Record<string, string | boolean>;
}

export type Command = (args: ParsedArgs, io: Output) => Promise<ExitCode>;

export interface FlagDecl {
  type: "string" | "boolean";
  /** The value's placeholder in help, e.g. "F" for --config F. */
  value?: string;
  help: string;
  short?: string;
  /** Shown without brackets in the synopsis; the command itself refuses to run without it. */
  required?: boolean;
}

export interface CommandDecl {
  /** The command's words, e.g. "plugin new". */
  name: string;
  /** Positionals as help shows them, e.g. "<kind> <name>". */
  args?: string;
  summary: string;
  /** More lines for `patchbay help <command>`. */
  details?: string[];
  flags?: Record<string, FlagDecl>;
  examples?: string[];
  /** Help lines computed on demand (e.g. the template kinds): read the disk only when asked. */
  more?: () => Promise<string[]>;
  /** Accept flags it does not declare (the hook runner fails open on any command line). */
  lenient?: boolean;
}
