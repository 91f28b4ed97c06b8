/**
 * Help, generated from the command table: the overview (`patchbay --help`, `patchbay help`) and
 * one command's page (`patchbay <command> --help`, `patchbay help <command>`) with its flags,
 * details, examples and anything computed on demand (the template kinds).
 */
import { EXIT, pbError, type ExitCode } from "../errors.js";
import { suggest } from "../config/suggest.js";
import type { ParsedArgs } from "./args.js";
import { COMMANDS, GLOBAL_FLAGS, findCommand, groupOf, type CommandDecl, type FlagDecl } from "./commands.js";
import type { Output } from "./render.js";

const EXIT_LINE = "Exit codes: 0 ok, 1 unhealthy or call failed, 2 usage or config error, 3 plugin load error.";

function flagSyntax(name: string, f: FlagDecl): string {
  return `--${name}${f.type === "string" ? ` ${f.value ?? "VALUE"}` : ""}`;
}

/** `plugin new <kind> <name> [--dir D] [--json]`: the command's one-line synopsis. */
export function synopsis(c: CommandDecl): string {
  // --json last: it is the one flag most commands share, so the command's own flags lead.
  const flags = Object.entries(c.flags ?? {}).sort(
    ([a, fa], [b, fb]) => Number(!fa.required) - Number(!fb.required) || Number(a === "json") - Number(b === "json"),
  );
  if (c.name === "serve")
    return "serve [--mcp | --http [--host H] [--port P] [--stateless]] [--metrics-port P] [--watch] [--json]";
  return [c.name, c.args, ...flags.map(([n, f]) => (f.required ? flagSyntax(n, f) : `[${flagSyntax(n, f)}]`))]
    .filter(Boolean)
    .join(" ");
}

/** Two aligned columns: the widest left cell sets the gap for every row. */
function columns(rows: [string, string][], indent = "  "): string[] {
  const width = Math.max(...rows.map(([l]) => l.length));
  return rows.map(([l, r]) => `${indent}${l.padEnd(width)}  ${r}`.trimEnd());
}

export function usage(): string {
  return [
    "Usage: patchbay <command> [options]",
    "",
    "Commands:",
    // Synopsis over summary: the synopses are too long for two columns on an 80-column terminal.
    ...COMMANDS.flatMap((c) => [`  patchbay ${synopsis(c)}`, `      ${c.summary}`]),
    "",
    "Every command also takes:",
    ...columns(
      Object.entries(GLOBAL_FLAGS).map(([n, f]) => [`${f.short ? `-${f.short}, ` : ""}${flagSyntax(n, f)}`, f.help]),
    ),
    "",
    "`patchbay help <command>` shows a command's flags and examples.",
    EXIT_LINE,
  ].join("\n");
}

export async function commandHelp(c: CommandDecl): Promise<string> {
  const flags: [string, string][] = Object.entries({ ...(c.flags ?? {}), ...GLOBAL_FLAGS }).map(([n, f]) => [
    `${f.short ? `-${f.short}, ` : ""}${flagSyntax(n, f)}`,
    f.help,
  ]);
  const lines = [`Usage: patchbay ${synopsis(c)}`, "", `${c.summary[0].toUpperCase()}${c.summary.slice(1)}.`];
  for (const d of c.details ?? []) lines.push(d);
  if (c.more) lines.push("", ...(await c.more()));
  lines.push("", "Options:", ...columns(flags));
  if (c.examples?.length) lines.push("", "Examples:", ...c.examples.map((e) => `  ${e}`));
  return lines.join("\n");
}

/** The overview of a group (`patchbay plugin`): its commands, aligned. */
export function groupHelp(group: string): string {
  return [
    `Usage: patchbay ${group} <command> [options]`,
    "",
    "Commands:",
    ...groupOf(group).flatMap((c) => [`  patchbay ${synopsis(c)}`, `      ${c.summary}`]),
  ].join("\n");
}

/** An unknown command, with the closest one (whole names and group members alike). */
export function unknownCommand(words: readonly string[]): Error {
  const typed = words.join(" ");
  const group = groupOf(words[0] ?? "");
  if (group.length > 0) {
    const subs = group.map((c) => c.name.split(" ")[1]);
    const close = words[1] ? suggest(words[1], subs) : null;
    return pbError(
      "PB_ERR_USAGE",
      `${words[1] ? `Unknown command "patchbay ${typed}".` : `"patchbay ${words[0]}" needs a command.`}${close ? ` Did you mean "patchbay ${words[0]} ${close}"?` : ""} ${words[0]} has: ${subs.join(", ")}.`,
      { command: typed, ...(close ? { suggestion: `${words[0]} ${close}` } : {}) },
      `Run \`patchbay ${words[0]} --help\` for its commands.`,
    );
  }
  const names = [...new Set(COMMANDS.map((c) => c.name.split(" ")[0]))];
  const close = suggest(words[0] ?? "", names);
  return pbError(
    "PB_ERR_USAGE",
    `Unknown command "${words[0]}".${close ? ` Did you mean "patchbay ${close}"?` : ""} Commands: ${names.join(", ")}.`,
    { command: words[0], ...(close ? { suggestion: close } : {}) },
  );
}

/** `patchbay help [<command>]`. */
export async function helpCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  if (args.positionals.length === 0) {
    io.out(usage());
    return EXIT.OK;
  }
  const found = findCommand(args.positionals);
  if (found && found.used === args.positionals.length) io.out(await commandHelp(found.decl));
  else if (args.positionals.length === 1 && groupOf(args.positionals[0]).length > 0)
    io.out(groupHelp(args.positionals[0]));
  else throw unknownCommand(args.positionals);
  return EXIT.OK;
}

/** A usage error for a declared command, its synopsis generated from the table like its help. */
export function usageError(name: string, detail = ""): Error {
  const decl = COMMANDS.find((c) => c.name === name);
  return pbError(
    "PB_ERR_USAGE",
    `Usage: patchbay ${decl ? synopsis(decl) : name}.${detail ? ` ${detail}` : ""}`,
    { command: name },
    `Run \`patchbay help ${name}\` for its flags and examples.`,
  );
}
