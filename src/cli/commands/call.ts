/**
 * `patchbay call <section>/<name> <method> [ARG_JSON ...]`: asks a running `patchbay serve` for
 * the same config when one answers; otherwise boots that instance (and what it is granted),
 * makes one call through the boundary, prints the JSON result on stdout.
 */
import { EXIT, fromWire, pbError, type ExitCode } from "../../errors.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";
import { usageError } from "../help.js";
import { callViaServer } from "../../gateway/call-client.js";

export async function callCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "call", ["json", "timeout-ms"]);
  const [target, method, ...rawArgs] = args.positionals;
  if (!target || !method || !/^[A-Za-z]+\/[^/]+$/.test(target)) {
    throw usageError("call", 'For example: patchbay call mcpConnectors/primary call echo \'{"text":"hi"}\'.');
  }
  const callArgs = rawArgs.map(parseArg);
  const timeoutFlag = flagString(args, "timeout-ms");
  const timeoutMs = timeoutFlag === undefined ? undefined : Number(timeoutFlag);
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0))
    throw pbError("PB_ERR_USAGE", "--timeout-ms must be a positive integer.", {});

  // A running `patchbay serve` for this config answers at once; otherwise boot just the target.
  const served = await callViaServer({
    config: flagString(args, "config"),
    instance: target,
    method,
    args: callArgs,
    timeoutMs,
  });
  if (served.answered) {
    io.out(JSON.stringify(served.value, null, 2));
    return EXIT.OK;
  }
  // Imported only now: the host pulls in zod and every stage, which a call answered by a running serve never needs.
  const { createHost } = await import("../../host/host.js");
  const host = await createHost({
    config: flagString(args, "config"),
    only: [target],
    collect: true,
    prettyLogs: !args.flags.json,
    logLevel: io.verbose ? "debug" : "warn",
  });
  io.scrubber.absorb(host.scrubber);
  try {
    // An instance that failed to boot: its own error (with the plugin's file:line and code frame),
    // not just "unavailable".
    const own = host.report().instances.find((i) => i.id === target || i.aliases.includes(target));
    if (own?.error && own.state === "failed") throw fromWire(own.error);
    // --verbose: progress the plugin reports (mcp: the server's notifications/progress) as lines on stderr.
    const onProgress = io.verbose
      ? (u: { progress: number; total?: number; message?: string }) =>
          io.err(
            `progress ${u.progress}${u.total === undefined ? "" : `/${u.total}`}${u.message ? ` ${u.message}` : ""}`,
          )
      : undefined;
    const result = await host.call(target, method, callArgs, { timeoutMs, onProgress });
    (io.result ?? io.out)(JSON.stringify(result === undefined ? null : result, null, 2));
    return EXIT.OK;
  } finally {
    await host.close();
  }
}

/**
 * One ARG: JSON when it parses as JSON; otherwise a bare word is the string it spells, so a tool
 * name needs no JSON quotes. Text that looks like JSON but is not (`{`, `[`, `"`) stays an error:
 * passing it on as a string would hide the typo.
 */
export function parseArg(raw: string, index: number): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (err) {
    if (!/^\s*[[{"]/.test(raw)) return raw;
    throw pbError(
      "PB_ERR_USAGE",
      `ARG ${index + 1} is not valid JSON (${(err as Error).message}): ${raw.length > 60 ? raw.slice(0, 60) + "…" : raw}`,
      { argument: index + 1 },
      'Quote each ARG for the shell, e.g. \'{"path":"README.md"}\'; a plain word needs no JSON quotes.',
    );
  }
}
