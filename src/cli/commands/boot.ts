/**
 * `patchbay boot`: boot every instance, report one row each, shut down. (`serve` is serve.ts.)
 */
import { EXIT, type ExitCode } from "../../errors.js";
import { bootFailure, createHost } from "../../host.js";
import type { Host } from "../../host-api.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import { renderError, renderReport, type Output } from "../render.js";

export async function bootCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "boot", ["json"]);
  const host = await createHost({ config: flagString(args, "config"), collect: true, prettyLogs: !args.flags.json, logLevel: io.verbose ? "debug" : "warn" });
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
    io.out(JSON.stringify({ ...report, error: failure ? { code: failure.code, message: failure.message, hint: failure.hint } : null }, null, 2));
  } else {
    io.out(renderReport(report));
    if (failure) io.err(renderError(failure, io.verbose));
  }
  return failure ? failure.exitCode : EXIT.OK;
}
