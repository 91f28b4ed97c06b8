/**
 * The host's pino logger. Every line passes through the Scrubber before it is written, so a
 * secret that a plugin logs (under any key, or inside a message) never reaches the stream.
 */
import { pino, type Logger, type DestinationStream } from "pino";
import type { Scrubber } from "./secrets.js";

export type { Logger } from "pino";

export interface LoggerOptions {
  level?: string;
  scrubber: Scrubber;
  /** Where lines go; default stderr, so stdout stays free for command output and --json. */
  destination?: DestinationStream;
}

export function createLogger(opts: LoggerOptions): Logger {
  const destination = opts.destination ?? pino.destination({ dest: 2, sync: true });
  return pino(
    {
      level: opts.level ?? process.env.PATCHBAY_LOG_LEVEL ?? "info",
      base: { name: "patchbay" },
      hooks: { streamWrite: (line: string) => opts.scrubber.scrub(line) },
    },
    destination,
  );
}

export const PLUGIN_LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type PluginLogLevel = (typeof PLUGIN_LOG_LEVELS)[number];
