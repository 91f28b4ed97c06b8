/**
 * The CLI's entry: parses the command line, runs one command, prints errors with their code
 * and hint, and is the only place that calls process.exit.
 */
import type { Worker } from "node:worker_threads";
import { EXIT, isPatchbayError, pbError, type ExitCode } from "../errors.js";
import { PLUGIN_API_VERSION } from "../contract/api-version.js";
import { packageVersion } from "../paths.js";
import { Scrubber } from "../secrets.js";
import { parseCommandLine, type CommandLine } from "./args.js";
import { loadCommand } from "./command-loaders.js";
import { groupOf } from "./commands.js";
import { commandHelp, groupHelp, unknownCommand, usage } from "./help.js";
import { errorDocument, renderError, type Output } from "./render.js";
import { endThreads } from "./threads-at-exit.js";

export { usage } from "./help.js";

export async function runCommand(argv: readonly string[], io: Output): Promise<ExitCode> {
  let line: CommandLine | null = null;
  try {
    line = parseCommandLine(argv);
    const { decl, words, flags } = line;
    io.verbose = flags.verbose === true;
    if (!decl) {
      if (words.length === 0) {
        if (flags.version) {
          io.out(`patchbay ${packageVersion()} (plugin API ${PLUGIN_API_VERSION})`);
          return EXIT.OK;
        }
        io.out(usage());
        return flags.help ? EXIT.OK : EXIT.USAGE;
      }
      if (words.length === 1 && flags.help && groupOf(words[0]).length > 0) {
        io.out(groupHelp(words[0]));
        return EXIT.OK;
      }
      throw unknownCommand(words);
    }
    if (flags.help) {
      io.out(await commandHelp(decl));
      return EXIT.OK;
    }
    // A word a command takes no argument for is a mistake (`doctor extra`), not something to ignore.
    if (decl.args === undefined && line.positionals.length > 0)
      throw pbError(
        "PB_ERR_USAGE",
        `patchbay ${decl.name} takes no arguments (got ${line.positionals.join(" ").slice(0, 200)}).`,
        { command: decl.name },
        `Run \`patchbay help ${decl.name}\` for its flags and examples.`,
      );
    const { help: _help, ...rest } = flags;
    const run = await loadCommand(decl);
    return await run({ positionals: line.positionals, flags: rest }, io);
  } catch (err) {
    // A hook must never block its client: even a bad command line allows, and says why on stderr.
    if (line ? line.decl?.name === "hook" : argv.includes("hook")) {
      io.err(`patchbay hook: failing open: ${renderError(err, false).split("\n")[0]}`);
      return EXIT.OK;
    }
    if (line?.flags.json) io.out(JSON.stringify(errorDocument(err, io.verbose), null, 2));
    else io.err(renderError(err, io.verbose));
    return isPatchbayError(err) ? err.exitCode : EXIT.UNHEALTHY;
  }
}

/** `threads`: the worker threads started since bin/ began and not exited yet, ended before the exit. */
export async function runMain(argv: readonly string[], threads: Set<Worker>): Promise<never> {
  const scrubber = new Scrubber();
  const io: Output = {
    scrubber,
    verbose: false,
    out: (text) => process.stdout.write(scrubber.scrub(text) + "\n"),
    err: (text) => process.stderr.write(scrubber.scrub(text) + "\n"),
    result: (text) => process.stdout.write(text + "\n"),
  };
  // A reader that closes the pipe early (`patchbay list | head`) is not an error worth a trace.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
  });
  const code = await runCommand(argv, io);
  // Flush stdout before exiting: a piped --json document must arrive whole.
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  await endThreads(threads, io.err, code);
  process.exit(code);
}
