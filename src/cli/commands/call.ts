/**
 * `patchbay call <section>/<name> <method> [ARG_JSON ...]`: boots that instance (and what it
 * is granted), makes one call through the boundary, prints the JSON result on stdout.
 */
import { EXIT, pbError, type ExitCode } from "../../errors.js";
import { createHost } from "../../host.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";

export async function callCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "call", ["json", "timeout-ms"]);
  const [target, method, ...rawArgs] = args.positionals;
  if (!target || !method || !/^[A-Za-z]+\/[^/]+$/.test(target)) {
    throw pbError("PB_ERR_USAGE", "Usage: patchbay call <section>/<name> <method> [ARG_JSON ...], e.g. patchbay call mcpConnectors/primary call '\"echo\"' '{\"text\":\"hi\"}'.", {});
  }
  const callArgs = rawArgs.map((raw, i) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw pbError("PB_ERR_USAGE", `Argument ${i + 1} of ${method} is not JSON: ${raw.length > 60 ? raw.slice(0, 60) + "…" : raw}. Quote strings as JSON, e.g. '"text"'.`, { argument: i + 1 });
    }
  });
  const timeoutFlag = flagString(args, "timeout-ms");
  const timeoutMs = timeoutFlag === undefined ? undefined : Number(timeoutFlag);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw pbError("PB_ERR_USAGE", "--timeout-ms must be a positive integer.", {});

  const host = await createHost({ config: flagString(args, "config"), only: [target], collect: true, prettyLogs: !args.flags.json, logLevel: io.verbose ? "debug" : "warn" });
  io.scrubber.absorb(host.scrubber);
  try {
    // --verbose: progress the plugin reports (mcp: the server's notifications/progress) as lines on stderr.
    const onProgress = io.verbose ? (u: { progress: number; total?: number; message?: string }) => io.err(`progress ${u.progress}${u.total === undefined ? "" : `/${u.total}`}${u.message ? ` ${u.message}` : ""}`) : undefined;
    const result = await host.call(target, method, callArgs, { timeoutMs, onProgress });
    io.out(JSON.stringify(result === undefined ? null : result, null, 2));
    return EXIT.OK;
  } finally {
    await host.close();
  }
}
