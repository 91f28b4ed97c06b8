/**
 * `patchbay boot`: boot every instance, report one row each, shut down. (`serve`, which stays
 * up, is commands/serve.ts.)
 */
import { EXIT, isRetryable, type ExitCode } from "../../errors.js";
import { bootFailure, createHost, type CreateHostOptions } from "../../host/host.js";
import type { Host } from "../../host/api.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import { renderError, renderReport, type Output } from "../render.js";

/**
 * Progress for a human waiting on a slow boot: on a terminal, once the boot has taken longer
 * than `afterMs`, one line per instance as it becomes ready (or fails), earlier ones first.
 * Quiet for --json, pipes and quick boots, so scripts and logs see only the report.
 */
export function progressPrinter(
  write: (line: string) => void,
  enabled: boolean,
  afterMs = 800,
): { onProgress?: CreateHostOptions["onProgress"]; done(): void } {
  if (!enabled) return { done: () => {} };
  const held: string[] = [];
  let live = false;
  const timer = setTimeout(() => {
    live = true;
    write("booting…");
    for (const line of held.splice(0)) write(line);
  }, afterMs);
  timer.unref();
  return {
    onProgress: (i) => {
      const line = `  ${i.state.padEnd(8)} ${i.id}${i.healthMs !== null ? ` (${i.healthMs} ms)` : ""}${i.error ? `: ${i.error.code}` : ""}`;
      if (live) write(line);
      else held.push(line);
    },
    done: () => clearTimeout(timer),
  };
}

export async function bootCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "boot", ["json"]);
  const progress = progressPrinter(io.err, !args.flags.json && process.stderr.isTTY === true);
  const host = await createHost({
    config: flagString(args, "config"),
    collect: true,
    prettyLogs: !args.flags.json,
    logLevel: io.verbose ? "debug" : "warn",
    onProgress: progress.onProgress,
  }).finally(progress.done);
  io.scrubber.absorb(host.scrubber);
  try {
    return reportOutcome(host, args, io);
  } finally {
    await host.close();
  }
}

function reportOutcome(host: Host, args: ParsedArgs, io: Output): ExitCode {
  const report = host.report();
  const failure = bootFailure(report);
  if (args.flags.json) {
    io.out(
      JSON.stringify(
        {
          ...report,
          error: failure
            ? { code: failure.code, message: failure.message, hint: failure.hint, retryable: isRetryable(failure.code) }
            : null,
        },
        null,
        2,
      ),
    );
  } else {
    io.out(renderReport(report));
    if (failure) io.err(renderError(failure, io.verbose));
  }
  return failure ? failure.exitCode : EXIT.OK;
}
