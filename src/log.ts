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
  /** One readable line per entry instead of JSON (the CLI's human mode). */
  pretty?: boolean;
}

export function createLogger(opts: LoggerOptions): Logger {
  const destination = opts.destination ?? pino.destination({ dest: 2, sync: true });
  return pino(
    {
      level: opts.level ?? process.env.PATCHBAY_LOG_LEVEL ?? "info",
      base: { name: "patchbay" },
      hooks: {
        streamWrite: (line: string) =>
          opts.pretty ? prettyLine(opts.scrubber.scrub(line)) : opts.scrubber.scrub(line),
      },
    },
    destination,
  );
}

const PLUGIN_LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
export type PluginLogLevel = (typeof PLUGIN_LOG_LEVELS)[number];

const LEVEL_NAMES: Record<number, string> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};
const HIDDEN_KEYS = new Set(["level", "time", "name", "msg", "instance", "plugin", "pid", "hostname"]);

/** `[warn] localModels/gemma2 (ollama): health check failed  error="..."`; scrubbing happened before. */
function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  const who = entry.instance ? `${String(entry.instance)}${entry.plugin ? ` (${String(entry.plugin)})` : ""}: ` : "";
  const extra = Object.entries(entry)
    .filter(([k]) => !HIDDEN_KEYS.has(k))
    .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v)}`)
    .join(" ");
  return `[${LEVEL_NAMES[entry.level as number] ?? "log"}] ${who}${String(entry.msg ?? "")}${extra ? "  " + extra : ""}\n`;
}
