/**
 * The CLI's entry: parses the command line, runs one command, prints errors with their code
 * and hint, and is the only place that calls process.exit.
 */
import { EXIT, isPatchbayError, pbError, type ExitCode } from "../errors.js";
import { Scrubber } from "../secrets.js";
import { PLUGIN_API_VERSION } from "../contract/manifest.js";
import { packageVersion } from "../paths.js";

const PATCHBAY_VERSION = packageVersion();
import { parseArgs, type ParsedArgs } from "./args.js";
import { errorDocument, renderError, type Output } from "./render.js";
type Command = (args: ParsedArgs, io: Output) => Promise<ExitCode>;

interface CommandEntry {
  /** Loaded on use: `patchbay hook` runs on every client hook, and importing every command cost it ~0.2 s. */
  load: () => Promise<Command>;
  usage: string;
}

const COMMANDS: Record<string, CommandEntry> = {
  boot: { load: async () => (await import("./commands/boot.js")).bootCommand, usage: "boot [--config F] [--json]        boot every instance, print one row each, shut down" },
  serve: { load: async () => (await import("./commands/serve.js")).serveCommand, usage: "serve [--config F] [--mcp | --http [--host H] [--port P]] [--watch]   the live host: an MCP gateway on stdio or Streamable HTTP, live health, hot reload" },
  status: { load: async () => (await import("./commands/status.js")).statusCommand, usage: "status [--config F] [--json]     ask the running serve for every instance's state, health, calls, errors, latency" },
  doctor: { load: async () => (await import("./commands/doctor.js")).doctorCommand, usage: "doctor [--config F] [--json]     every check boot makes, each with its fix" },
  list: { load: async () => (await import("./commands/list.js")).listCommand, usage: "list [--config F] [--json] [--live]  discovered plugins and configured instances (--live: boot them for health, tools, agents)" },
  call: { load: async () => (await import("./commands/call.js")).callCommand, usage: "call <section>/<name> <method> [ARG_JSON ...] [--timeout-ms N]" },
  hook: { load: async () => (await import("./commands/hook.js")).hookCommand, usage: "hook <adapter> [event] [--timeout-ms N]   run a client hook: payload on stdin, outcome out; fails open" },
};

const SUBCOMMANDS: Record<string, Record<string, CommandEntry>> = {
  plugin: {
    new: { load: async () => (await import("./commands/plugin-new.js")).pluginNewCommand, usage: "new <kind> <name> [--dir D] [--json]   scaffold a plugin from templates/<kind>/ into D/<name> (D: ./plugins)" },
    test: { load: async () => (await import("./commands/plugin-test.js")).pluginTestCommand, usage: "test <name-or-path> [--config F] [--json]   run the kind's conformance kit against the plugin, one row per claim" },
  },
  adapter: {
    install: { load: async () => (await import("./commands/adapter.js")).adapterInstallCommand, usage: "install <adapter...> [--dry-run] [--json]   wire the adapter into its client (idempotent)" },
    uninstall: { load: async () => (await import("./commands/adapter.js")).adapterUninstallCommand, usage: "uninstall <adapter...> [--dry-run] [--json]   undo an install from its record, byte for byte" },
    doctor: { load: async () => (await import("./commands/adapter.js")).adapterDoctorCommand, usage: "doctor [<adapter...>] [--json]             client version, declared vs effective capabilities" },
    certify: { load: async () => (await import("./commands/adapter.js")).adapterCertifyCommand, usage: "certify <adapter> --client <path> [--dry-run] [--json]   run the real client offline, capture, write evidence" },
    inbox: { load: async () => (await import("./commands/adapter.js")).adapterInboxCommand, usage: "inbox <adapter> [--message ID] [--json]     messages waiting for the client's next turn" },
  },
};

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
    if (args.flags.version && !name) {
      io.out(`patchbay ${PATCHBAY_VERSION} (plugin API ${PLUGIN_API_VERSION})`);
      return EXIT.OK;
    }
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
    const run = await command.load();
    return await run({ positionals: rest, flags: args.flags }, io);
  } catch (err) {
    // A hook must never block its client: even a bad command line allows, and says why on stderr.
    if (args ? args.positionals[0] === "hook" : argv.includes("hook")) {
      io.err(`patchbay hook: failing open: ${renderError(err, false).split("\n")[0]}`);
      return EXIT.OK;
    }
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
  // A reader that closes the pipe early (`patchbay list | head`) is not an error worth a trace.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
  });
  const code = await runCommand(argv, io);
  // Flush stdout before exiting: a piped --json document must arrive whole.
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  process.exit(code);
}
