/**
 * `patchbay boot` and `patchbay serve`: boot every instance, report one row each; boot shuts
 * down after the report, serve stays up until SIGINT or SIGTERM and then closes gracefully.
 * (The CLI routes `serve` to commands/serve.ts, the gateway; this one is its fallback.)
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
export function progressPrinter(write: (line: string) => void, enabled: boolean, afterMs = 800): { onProgress?: CreateHostOptions["onProgress"]; done(): void } {
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
  const host = await createHost({ config: flagString(args, "config"), collect: true, prettyLogs: !args.flags.json, logLevel: io.verbose ? "debug" : "warn", onProgress: progress.onProgress }).finally(progress.done);
  io.scrubber.absorb(host.scrubber);
  try {
    return reportOutcome(host, args, io);
  } finally {
    await host.close();
  }
}

export async function serveCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "serve", []);
  const progress = progressPrinter(io.err, process.stderr.isTTY === true);
  const host = await createHost({ config: flagString(args, "config"), collect: true, prettyLogs: !args.flags.json, logLevel: io.verbose ? "debug" : "info", onProgress: progress.onProgress }).finally(progress.done);
  io.scrubber.absorb(host.scrubber);
  const code = reportOutcome(host, args, io);
  if (code !== EXIT.OK) {
    await host.close();
    return code;
  }
  // Listen before announcing: a supervisor may signal the moment it reads the line.
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  io.err(`patchbay: serving ${host.instanceIds().length} instances; press Ctrl-C to stop.`);
  const signal = await stopped;
  io.err(`patchbay: ${signal} received, stopping every instance...`);
  await host.close();
  io.err("patchbay: stopped.");
  return EXIT.OK;
}

function reportOutcome(host: Host, args: ParsedArgs, io: Output): ExitCode {
  const report = host.report();
  const failure = bootFailure(report);
  if (args.flags.json) {
    io.out(JSON.stringify({ ...report, error: failure ? { code: failure.code, message: failure.message, hint: failure.hint, retryable: isRetryable(failure.code) } : null }, null, 2));
  } else {
    io.out(renderReport(report));
    if (failure) io.err(renderError(failure, io.verbose));
  }
  return failure ? failure.exitCode : EXIT.OK;
}
