/**
 * The flags every command takes, and the two helpers commands read their flags with. Apart from the
 * command table (commands.ts) so a command can use them without importing the table.
 */
import { pbError } from "../errors.js";
import type { FlagDecl, ParsedArgs } from "./command-types.js";

/** Accepted by every command. */
export const GLOBAL_FLAGS: Record<string, FlagDecl> = {
  config: {
    type: "string",
    value: "F",
    help: "connectors.json to use (default: PATCHBAY_CONFIG, then connectors.json from here upwards)",
  },
  verbose: { type: "boolean", help: "debug logs, and stack traces with errors" },
  help: { type: "boolean", short: "h", help: "show this help" },
};

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
