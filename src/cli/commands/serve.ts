/**
 * `patchbay serve [--mcp | --http [--host H] [--port P] [--stateless]] [--metrics-port P] [--watch]`:
 * boot, then stay up as the live host until SIGINT/SIGTERM (or, with --mcp, until the client closes
 * stdin). The boot report goes to stdout as `boot` prints it, except with --mcp, where stdout carries
 * nothing but MCP and the report joins every other message on stderr.
 */
import { EXIT, pbError, type ExitCode } from "../../errors.js";
import { bootFailure, createHost } from "../../host/host.js";
import type { Host } from "../../host/api.js";
import type { Serving, ServeOptions } from "../../gateway/serve.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import { renderError, renderReport, type Output } from "../render.js";

const DEFAULT_PORT = 7777;

export async function serveCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "serve", ["mcp", "http", "host", "port", "stateless", "watch", "json", "metrics-port"]);
  const mcp = args.flags.mcp === true;
  const http = args.flags.http === true;
  if (mcp && args.flags.json)
    throw pbError("PB_ERR_USAGE", "serve --mcp does not take --json: stdout is the MCP stream.", { flag: "json" });
  if (!http && (args.flags.host !== undefined || args.flags.port !== undefined || args.flags.stateless !== undefined))
    throw pbError("PB_ERR_USAGE", "--host, --port and --stateless go with --http.", {});
  const port = parsePort(flagString(args, "port"), "port") ?? DEFAULT_PORT;
  const metricsPort = parsePort(flagString(args, "metrics-port"), "metrics-port");
  // With --mcp, stdout is the protocol: everything human goes to stderr.
  const say = (line: string) => io.err(line);
  // Listen before announcing: a supervisor may signal the moment it reads the line.
  const stopped = new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  // The transports open as soon as the host exists, before its instances boot: a client that
  // spawns `serve --mcp` gets its initialize answered (and tools/list from the last boot's
  // catalog) while the boot runs; calls wait for it.
  let early: Promise<Serving> | null = null;
  const options = {
    mcp,
    http: http
      ? { host: flagString(args, "host") ?? "127.0.0.1", port, stateless: args.flags.stateless === true }
      : null,
    say,
    watch: args.flags.watch === true,
    metricsPort,
  };
  const closeEarly = async () => {
    const s = await early?.catch(() => null);
    await s?.close();
  };
  let host;
  let booting: Host | null = null;
  let gateway: Serving["gateway"] | null = null;
  // A client that goes away (or a signal) during the boot ends the server now, not after the
  // boot: Claude Code stops its MCP servers with SIGINT, then SIGTERM, then SIGKILL within a second.
  let gone: string | null = null;
  const leave = async (why: string) => {
    if (!booting) return;
    say(`patchbay: ${why} while booting, stopping...`);
    // Bounded: the client escalates to SIGKILL soon, and a worker still starting may not answer.
    const host: Host = booting;
    await Promise.race([closeEarly().then(() => host.close()), new Promise((r) => setTimeout(r, 500))]);
    process.exit(EXIT.OK);
  };
  void Promise.race([stopped, ...(mcp ? [stdinClosed()] : [])]).then((why) => {
    gone = why;
    return leave(why);
  });
  try {
    host = await createHost({
      config: flagString(args, "config"),
      collect: true,
      prettyLogs: !args.flags.json,
      logLevel: io.verbose ? "debug" : "info",
      onCreated: (h) => {
        booting = h;
        io.scrubber.absorb(h.scrubber);
        early = startServingLater(h, options);
        early.then(
          (s) => (gateway = s.gateway),
          () => undefined,
        ); // awaited after the boot
        if (gone) void leave(gone);
      },
      // Each instance's tools reach clients as soon as it is ready, not when the last one is.
      onProgress: () => gateway?.instanceBooted(),
    });
  } catch (err) {
    booting = null;
    await closeEarly();
    throw err;
  }
  booting = null;
  io.scrubber.absorb(host.scrubber);
  const report = host.report();
  const failure = bootFailure(report);
  if (args.flags.json)
    io.out(
      JSON.stringify(
        { ...report, error: failure ? { code: failure.code, message: failure.message, hint: failure.hint } : null },
        null,
        2,
      ),
    );
  else (mcp ? say : io.out)(renderReport(report));
  if (failure) {
    if (!args.flags.json) say(renderError(failure, io.verbose));
    await closeEarly();
    await host.close();
    return failure.exitCode;
  }
  let serving: Serving;
  try {
    serving = await (early ?? startServingLater(host, options));
    await serving.ready();
    (await import("../tier-up.js")).tierUpSooner();
  } catch (err) {
    await closeEarly();
    await host.close();
    throw err;
  }
  say(
    `patchbay: serving ${host.instanceIds().length} instances, ${serving.gateway.toolNames().length} gateway tools${mcp ? " over stdio" : ""}; status: \`patchbay status\`; press Ctrl-C to stop.`,
  );
  const why = await Promise.race([stopped, serving.stdioClosed.then(() => "the MCP client closed stdin")]);
  say(`patchbay: ${why}, stopping every instance...`);
  await serving.close();
  await host.close();
  say("patchbay: stopped.");
  return EXIT.OK;
}

/**
 * The gateway (the MCP SDK's server, the HTTP stack, ~100 ms of module loading) is imported only
 * once the host exists, that is, as its first workers start: the workers then boot on the other
 * core while this thread loads it, instead of after. An instance's readiness, not the listener,
 * is what a client's first call waits for; `serve --mcp`'s first answers come from the head start
 * in bin/patchbay.mjs, which does not wait for this.
 */
async function startServingLater(host: Host, options: ServeOptions): Promise<Serving> {
  const { startServing } = await import("../../gateway/serve.js");
  return startServing(host, options);
}

/** Resolves when stdin ends: the MCP client that spawned this server is gone. */
function stdinClosed(): Promise<string> {
  return new Promise((resolve) => {
    const done = () => resolve("the MCP client closed stdin");
    // The head start (gateway/stdio-front.ts) may have read stdin to its end before this module loaded.
    if (process.stdin.readableEnded) return done();
    process.stdin.once("end", done);
    process.stdin.once("close", done);
  });
}

function parsePort(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 0 || n > 65535)
    throw pbError(
      "PB_ERR_USAGE",
      `--${flag} must be a port number 0-65535 (0: any free port), not ${JSON.stringify(value.slice(0, 40))}.`,
      { flag },
    );
  return n;
}
