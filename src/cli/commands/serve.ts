/**
 * `patchbay serve [--mcp | --http [--host H] [--port P]] [--watch]`: boot, then stay up as the
 * live host until SIGINT/SIGTERM (or, with --mcp, until the client closes stdin). The boot report
 * goes to stdout as `boot` prints it, except with --mcp, where stdout carries nothing but MCP and
 * the report joins every other message on stderr.
 */
import { EXIT, pbError, type ExitCode } from "../../errors.js";
import { bootFailure, createHost } from "../../host/host.js";
import { startServing } from "../../gateway/serve.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import { renderError, renderReport, type Output } from "../render.js";

const DEFAULT_PORT = 7777;

export async function serveCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "serve", ["mcp", "http", "host", "port", "watch", "json"]);
  const mcp = args.flags.mcp === true;
  const http = args.flags.http === true;
  if (mcp && args.flags.json) throw pbError("PB_ERR_USAGE", "serve --mcp does not take --json: stdout is the MCP stream.", { flag: "json" });
  if (!http && (args.flags.host !== undefined || args.flags.port !== undefined)) throw pbError("PB_ERR_USAGE", "--host and --port go with --http.", {});
  const port = parsePort(flagString(args, "port"));
  // With --mcp, stdout is the protocol: everything human goes to stderr.
  const say = (line: string) => io.err(line);
  const host = await createHost({ config: flagString(args, "config"), collect: true, prettyLogs: !args.flags.json, logLevel: io.verbose ? "debug" : "info" });
  io.scrubber.absorb(host.scrubber);
  const report = host.report();
  const failure = bootFailure(report);
  if (args.flags.json) io.out(JSON.stringify({ ...report, error: failure ? { code: failure.code, message: failure.message, hint: failure.hint } : null }, null, 2));
  else (mcp ? say : io.out)(renderReport(report));
  if (failure) {
    if (!args.flags.json) say(renderError(failure, io.verbose));
    await host.close();
    return failure.exitCode;
  }
  // Listen before announcing: a supervisor may signal the moment it reads the line.
  const stopped = new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  let serving;
  try {
    serving = await startServing(host, { mcp, http: http ? { host: flagString(args, "host") ?? "127.0.0.1", port } : null, say, watch: args.flags.watch === true });
  } catch (err) {
    await host.close();
    throw err;
  }
  say(`patchbay: serving ${host.instanceIds().length} instances, ${serving.gateway.toolNames().length} gateway tools${mcp ? " over stdio" : ""}; status: \`patchbay status\`; press Ctrl-C to stop.`);
  const why = await Promise.race([stopped, serving.stdioClosed.then(() => "the MCP client closed stdin")]);
  say(`patchbay: ${why}, stopping every instance...`);
  await serving.close();
  await host.close();
  say("patchbay: stopped.");
  return EXIT.OK;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw pbError("PB_ERR_USAGE", `--port must be a port number 0-65535 (0: any free port), not ${JSON.stringify(value)}.`, { flag: "port" });
  return n;
}
