/**
 * The CLI's entry: parses the command line, runs one command, prints errors with their code
 * and hint, and is the only place that calls process.exit.
 */
import { EXIT, isPatchbayError, pbError, type ExitCode } from "../errors.js";
import { Scrubber } from "../secrets.js";
import { parseArgs, type ParsedArgs } from "./args.js";
import { errorDocument, renderError, type Output } from "./render.js";
import { bootCommand, serveCommand } from "./commands/boot.js";
import { doctorCommand } from "./commands/doctor.js";
import { listCommand } from "./commands/list.js";
import { callCommand } from "./commands/call.js";
import { pluginNewCommand, PLUGIN_NEW_USAGE } from "./commands/plugin-new.js";
import { pluginTestCommand, PLUGIN_TEST_USAGE } from "./commands/plugin-test.js";
import { hookCommand } from "./commands/hook.js";
import { adapterDoctorCommand, adapterInboxCommand, adapterInstallCommand, adapterUninstallCommand } from "./commands/adapter.js";

type Command = (args: ParsedArgs, io: Output) => Promise<ExitCode>;

const COMMANDS: Record<string, { run: Command; usage: string }> = {
  boot: { run: bootCommand, usage: "boot [--config F] [--json]        boot every instance, print one row each, shut down" },
  serve: { run: serveCommand, usage: "serve [--config F]               boot and stay up until SIGINT/SIGTERM" },
  doctor: { run: doctorCommand, usage: "doctor [--config F] [--json]     every check boot makes, each with its fix" },
  list: { run: listCommand, usage: "list [--config F] [--json] [--live]  discovered plugins and configured instances (--live: boot them for health, tools, agents)" },
  call: { run: callCommand, usage: "call <section>/<name> <method> [ARG_JSON ...] [--timeout-ms N]" },
};

const SUBCOMMANDS: Record<string, Record<string, { run: Command; usage: string }>> = {};

/** Lets later modules add `plugin new`, `plugin test`, `hook`, `adapter ...` without editing this table's shape. */
export function registerCommand(path: string, run: Command, usage: string): void {
  const [head, sub] = path.split(" ");
  if (sub) (SUBCOMMANDS[head] ??= {})[sub] = { run, usage };
  else COMMANDS[head] = { run, usage };
}

registerCommand("plugin new", pluginNewCommand, PLUGIN_NEW_USAGE);
registerCommand("plugin test", pluginTestCommand, PLUGIN_TEST_USAGE);

registerCommand("hook", hookCommand, "hook <adapter> [event] [--timeout-ms N]   run a client hook: payload on stdin, outcome out; fails open");
registerCommand("adapter install", adapterInstallCommand, "install <adapter...> [--dry-run] [--json]   wire the adapter into its client (idempotent)");
registerCommand("adapter uninstall", adapterUninstallCommand, "uninstall <adapter...> [--dry-run] [--json]   undo an install from its record, byte for byte");
registerCommand("adapter doctor", adapterDoctorCommand, "doctor [<adapter...>] [--json]             client version, declared vs effective capabilities");
registerCommand("adapter inbox", adapterInboxCommand, "inbox <adapter> [--message ID] [--json]     messages waiting for the client's next turn");

export function usage(): string {
  const lines = ["Usage: patchbay <command> [options]", "", "Commands:"];
  for (const c of Object.values(COMMANDS)) lines.push(`  patchbay ${c.usage}`);
  for (const [head, subs] of Object.entries(SUBCOMMANDS)) for (const c of Object.values(subs)) lines.push(`  patchbay ${head} ${c.usage}`);
  lines.push("", "Every command accepts --config FILE and --verbose. Exit codes: 0 ok, 1 unhealthy or call failed, 2 usage or config error, 3 plugin load error.");
  return lines.join("\n");
}

export async function runCommand(argv: readonly string[], io: Output): Promise<ExitCode> {
  let args: ParsedArgs | null = null;
  try {
    args = parseArgs(argv);
    io.verbose = args.flags.verbose === true;
    const [name, sub] = args.positionals;
    if (!name) {
      io.out(usage());
      return args.flags.help ? EXIT.OK : EXIT.USAGE;
    }
    let command = COMMANDS[name];
    let rest = args.positionals.slice(1);
    if (!command && SUBCOMMANDS[name]) {
      command = SUBCOMMANDS[name][sub ?? ""];
      rest = args.positionals.slice(2);
      if (!command && !sub && args.flags.help) {
        io.out(usage());
        return EXIT.OK;
      }
      if (!command) throw pbError("PB_ERR_USAGE", `Unknown command "patchbay ${name}${sub ? " " + sub : ""}". ${name} has: ${Object.keys(SUBCOMMANDS[name]).join(", ")}.`, {});
    }
    if (!command) throw pbError("PB_ERR_USAGE", `Unknown command "${name}". Commands: ${[...Object.keys(COMMANDS), ...Object.keys(SUBCOMMANDS)].join(", ")}.`, {});
    if (args.flags.help) {
      io.out(`Usage: patchbay ${COMMANDS[name] ? "" : name + " "}${command.usage}`);
      return EXIT.OK;
    }
    return await command.run({ positionals: rest, flags: args.flags }, io);
  } catch (err) {
    if (args?.flags.json) io.out(JSON.stringify(errorDocument(err), null, 2));
    else io.err(renderError(err, io.verbose));
    return isPatchbayError(err) ? err.exitCode : EXIT.UNHEALTHY;
  }
}

export async function runMain(argv: readonly string[]): Promise<never> {
  const scrubber = new Scrubber();
  const io: Output = {
    scrubber,
    verbose: false,
    out: (text) => process.stdout.write(scrubber.scrub(text) + "\n"),
    err: (text) => process.stderr.write(scrubber.scrub(text) + "\n"),
  };
  const code = await runCommand(argv, io);
  // Flush stdout before exiting: a piped --json document must arrive whole.
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  process.exit(code);
}
