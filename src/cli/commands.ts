// One table on purpose: every command is declared here, so parsing, help and dispatch cannot disagree.
/**
 * Every command, declared once: its words, arguments, flags (with what each does) and examples.
 * Parsing (args.ts), help (help.ts) and dispatch (main.ts) all read this table, so a flag exists
 * for exactly the commands that declare it and help can never drift from it.
 *
 * Nothing here names a command's module: command-loaders.ts does, for dispatch alone. The
 * commands read this table (through args.ts and help.ts), so a table that loaded them would
 * import its own readers.
 */
import type { ExitCode } from "../errors.js";
import type { Output } from "./render.js";

/** A command line as a command receives it (args.ts produces it from argv and this table). */
export interface ParsedArgs {
  positionals: string[];
  /** Keyed by long flag name: a string for a flag with a value, true for a switch. */
  flags: Record<string, string | boolean>;
}

export type Command = (args: ParsedArgs, io: Output) => Promise<ExitCode>;

export interface FlagDecl {
  type: "string" | "boolean";
  /** The value's placeholder in help, e.g. "F" for --config F. */
  value?: string;
  help: string;
  short?: string;
  /** Shown without brackets in the synopsis; the command itself refuses to run without it. */
  required?: boolean;
}

export interface CommandDecl {
  /** The command's words, e.g. "plugin new". */
  name: string;
  /** Positionals as help shows them, e.g. "<kind> <name>". */
  args?: string;
  summary: string;
  /** More lines for `patchbay help <command>`. */
  details?: string[];
  flags?: Record<string, FlagDecl>;
  examples?: string[];
  /** Help lines computed on demand (e.g. the template kinds): read the disk only when asked. */
  more?: () => Promise<string[]>;
  /** Accept flags it does not declare (the hook runner fails open on any command line). */
  lenient?: boolean;
}

/** Accepted by every command. */
export const GLOBAL_FLAGS: Record<string, FlagDecl> = {
  config: {
    type: "string",
    value: "F",
    help: "connectors.json to use (default: PATCHBAY_CONFIG, then connectors.json from here upwards)",
  },
  verbose: { type: "boolean", help: "debug logs, and stack traces with errors" },
  help: { type: "boolean", short: "h", help: "show this help" },
};

const json: FlagDecl = { type: "boolean", help: "print one JSON document on stdout" };
const dryRun: FlagDecl = { type: "boolean", help: "show what would change; change nothing" };

export const COMMANDS: readonly CommandDecl[] = [
  {
    name: "boot",
    summary: "boot every instance, print one row each, shut down",
    details: [
      "Exit 0 when every required instance is healthy, 1 when one is not, 2 for a usage or config error, 3 for a plugin load error.",
      "On a terminal, a line is printed as each instance becomes ready.",
    ],
    flags: { json },
    examples: ["patchbay boot", "patchbay boot --config ./connectors.json --json"],
  },
  {
    name: "serve",
    summary:
      "the live host: an MCP gateway (--mcp stdio, --http Streamable HTTP), live health, hot reload; up until SIGINT/SIGTERM",
    flags: {
      mcp: { type: "boolean", help: "an MCP server on stdio" },
      http: {
        type: "boolean",
        help: "MCP Streamable HTTP at /mcp (bearer token from PATCHBAY_TOKEN or .patchbay/token)",
      },
      host: { type: "string", value: "H", help: "with --http: the address to listen on (default 127.0.0.1)" },
      port: { type: "string", value: "P", help: "with --http: the port to listen on" },
      stateless: {
        type: "boolean",
        help: "with --http: no sessions, so any replica behind a round-robin balancer answers any request (no list_changed or subscriptions)",
      },
      "metrics-port": {
        type: "string",
        value: "P",
        help: "Prometheus metrics at http://127.0.0.1:P/metrics without the token (with --mcp or --http)",
      },
      watch: { type: "boolean", help: "restart only what a config or plugin change affects" },
    },
    examples: [
      "patchbay serve",
      "patchbay serve --mcp",
      "patchbay serve --http --port 8765",
      "patchbay serve --http --stateless --host 0.0.0.0",
      "patchbay serve --mcp --metrics-port 9464",
    ],
  },
  {
    name: "status",
    summary: "ask the running server for every instance's state and health",
    flags: {
      json,
      peers: {
        type: "string",
        value: "URL,...",
        help: "read each `serve --http` replica's GET /status (token: PATCHBAY_TOKEN or .patchbay/token): a row per replica and totals",
      },
    },
    examples: [
      "patchbay status",
      "patchbay status --json",
      "patchbay status --peers http://10.0.0.5:7777,http://10.0.0.6:7777",
    ],
  },
  {
    name: "audit",
    summary: "who called what through `serve --http`: one row per request that reached an instance",
    details: [
      "Reads .patchbay/audit.log and its rotated files (audit.log.1 ...), or, when connectors.json names gateway.state, the PostgreSQL every replica writes to.",
      "Each entry: time, client, session, instance, tool/resource/prompt, outcome code, duration, bytes in and out, idempotency key; never argument or result values.",
      "A line that is not an entry is skipped and counted on stderr. Exit 1 when the trail cannot be read (PB_ERR_AUDIT_UNREADABLE).",
    ],
    flags: {
      json,
      client: { type: "string", value: "ID", help: "only this client's requests (\"operator\": the server token's)" },
      since: {
        type: "string",
        value: "T",
        help: "only entries since T: a duration back from now (90s, 10m, 2h, 7d) or an ISO time",
      },
    },
    examples: ["patchbay audit", "patchbay audit --client alpha --since 10m", "patchbay audit --since 2h --json"],
  },
  {
    name: "pins diff",
    args: "[instance]",
    summary: "what differs from connectors.lock.json: changed, new and hidden-text definitions, by JSON pointer",
    details: [
      "Asks the running `patchbay serve` of this config; without one, boots the instances to read their definitions.",
      "Descriptions are compared by words, schemas by JSON pointer; hidden characters are shown as <U+XXXX>.",
      "Exit 0 when every definition is as pinned, 1 when one differs.",
    ],
    flags: { json },
    examples: ["patchbay pins diff", "patchbay pins diff mcpConnectors/github --json"],
  },
  {
    name: "pins accept",
    args: "<instance> [name...]",
    summary: "pin what an instance offers now (all of it, or the named definitions) in connectors.lock.json",
    details: [
      "The running `patchbay serve` writes the lock and serves the accepted definitions at once; without one, the instances are booted and the lock written.",
      "A definition with hidden text is pinned only with --allow-hidden-text.",
    ],
    flags: {
      json,
      "allow-hidden-text": {
        type: "boolean",
        help: "also pin definitions whose text holds characters a person does not see (review them first)",
      },
    },
    examples: ["patchbay pins accept mcpConnectors/github", "patchbay pins accept mcpConnectors/github search_issues"],
  },
  {
    name: "client add",
    args: "<id>",
    summary: "a new gateway client: prints its token once, writes only the token's SHA-256 to connectors.json",
    details: [
      "Without --expose the client gets every instance the file has now, each written as true (one added later is not in it until you add it); a client never sees more than gateway.expose.",
      "A running `patchbay serve --http` of this config takes the new client at once, with no restart.",
    ],
    flags: {
      json,
      expose: {
        type: "string",
        value: "SPEC",
        help: 'what it sees: "section/name" (all of it) or "section/name=tool,glob*", space-separated; or the JSON object',
      },
      "calls-per-minute": { type: "string", value: "N", help: "calls it may make per minute" },
      concurrent: { type: "string", value: "N", help: "calls it may have in flight at once" },
      metrics: { type: "boolean", help: "it may read GET /metrics" },
    },
    examples: [
      "patchbay client add ci-bot",
      'patchbay client add triage --expose "mcpConnectors/github=search_*,get_issue" --calls-per-minute 60',
    ],
  },
  {
    name: "client list",
    summary: "the gateway's clients: how each proves who it is, what it sees, its limits (never a token)",
    flags: { json },
    examples: ["patchbay client list", "patchbay client list --json"],
  },
  {
    name: "client revoke",
    args: "<id>",
    summary: "remove a client; a running serve refuses its token on the next request and ends its sessions",
    flags: { json },
    examples: ["patchbay client revoke ci-bot"],
  },
  {
    name: "init",
    summary: "write a starter connectors.json and plugins folder in an empty folder",
    details: [
      "Refuses to write into a folder that already has a connectors.json or a plugins folder. With --config F, writes F (and plugins/ beside it).",
    ],
    flags: { json },
    examples: ["mkdir my-agent && cd my-agent && patchbay init"],
  },
  {
    name: "doctor",
    summary: "every check boot makes, never stopping at the first problem, each with its fix",
    flags: { json },
    examples: ["patchbay doctor", "patchbay doctor --json"],
  },
  {
    name: "list",
    summary: "discovered plugins and configured instances",
    flags: {
      json,
      live: { type: "boolean", help: "boot the instances for health, MCP tools and agents, then shut down" },
    },
    examples: ["patchbay list", "patchbay list --live --json"],
  },
  {
    name: "call",
    args: "<section>/<name> <method> [ARG ...]",
    summary: "boot one instance (and what it requires), call a method, print the result",
    details: [
      "Each ARG is JSON; a word that is not JSON is taken as a string, so a tool name needs no quotes.",
      "The result is printed as JSON on stdout; a failure as its code and message on stderr (exit 1).",
    ],
    flags: {
      json,
      "timeout-ms": {
        type: "string",
        value: "N",
        help: "the call's deadline in milliseconds (default: the instance's timeout_ms)",
      },
    },
    examples: [
      "patchbay call mcpConnectors/files list_tools",
      'patchbay call mcpConnectors/files call read_file \'{"path":"README.md"}\'',
      'patchbay call memoryStores/notes query \'{"query":"deploy","limit":5,"mode":"fts"}\'',
    ],
  },
  {
    name: "hook",
    args: "<adapter> [event]",
    summary: "run a client hook: payload on stdin, outcome out; fails open",
    flags: { "timeout-ms": { type: "string", value: "N", help: "the whole run's time bound" } },
    examples: ["patchbay hook claude-code PreToolUse < payload.json"],
    lenient: true,
  },
  {
    name: "plugin new",
    args: "<kind> <name>",
    summary: "scaffold a plugin from templates/<kind>/ into D/<name>",
    details: [
      "Never overwrites: an existing folder is refused. The result boots and passes its kind's conformance kit unchanged.",
    ],
    flags: {
      json,
      dir: { type: "string", value: "D", help: "the folder to create the plugin in (default ./plugins)" },
    },
    examples: ["patchbay plugin new mcp github-issues", "patchbay plugin new memory-store notes --dir vendor/plugins"],
    more: async () => [`Kinds: ${(await import("../scaffold/scaffold.js")).templateKinds().join(", ")}.`],
  },
  {
    name: "plugin test",
    args: "<name-or-path>",
    summary: "run the kind's conformance kit against the plugin, one row per claim",
    details: [
      "The config is always the plugin's test.config.json, never a connectors.json instance's (the kit writes, and that store may be live).",
    ],
    flags: { json },
    examples: ["patchbay plugin test ./plugins/github-issues", "patchbay plugin test sqlite-memory --json"],
  },
  {
    name: "adapter install",
    args: "<adapter...>",
    summary: "wire the adapter into its client (idempotent)",
    details: [
      "When the client will not run the hooks until the user consents to them, install says so and names the step.",
    ],
    flags: {
      json,
      "dry-run": dryRun,
      "trust-hooks": {
        type: "boolean",
        help: "also record the client's trust in Patchbay's hooks, through the client's own tooling (uninstall removes it)",
      },
    },
    examples: ["patchbay adapter install claude-code --dry-run", "patchbay adapter install codex --trust-hooks"],
  },
  {
    name: "adapter uninstall",
    args: "<adapter...>",
    summary: "undo an install from its record, byte for byte",
    flags: { json, "dry-run": dryRun },
    examples: ["patchbay adapter uninstall claude-code"],
  },
  {
    name: "adapter doctor",
    args: "[<adapter...>]",
    summary: "client version, declared vs effective capabilities",
    flags: { json },
    examples: ["patchbay adapter doctor", "patchbay adapter doctor claude-code --json"],
  },
  {
    name: "adapter inbox",
    args: "<adapter>",
    summary: "messages waiting for the client's next turn",
    flags: { json, message: { type: "string", value: "ID", help: "show this message whole (and mark it delivered)" } },
    examples: ["patchbay adapter inbox claude-code", "patchbay adapter inbox claude-code --message 01J..."],
  },
  {
    name: "adapter certify",
    args: "<adapter>",
    summary: "run the real client offline, capture, write certification evidence",
    flags: {
      json,
      "dry-run": dryRun,
      client: {
        type: "string",
        value: "PATH",
        required: true,
        help: "the client binary (path or name on PATH) to certify against",
      },
    },
    examples: ["patchbay adapter certify claude-code --client $(which claude) --dry-run"],
  },
  {
    name: "help",
    args: "[<command>]",
    summary: "show the commands, or one command's flags and examples",
    examples: ["patchbay help", "patchbay help plugin new"],
  },
];

/** The command `words` name (its longest declared prefix), and how many words that took. */
export function findCommand(words: readonly string[]): { decl: CommandDecl; used: number } | null {
  for (const n of [2, 1]) {
    if (words.length < n) continue;
    const decl = COMMANDS.find((c) => c.name === words.slice(0, n).join(" "));
    if (decl) return { decl, used: n };
  }
  return null;
}

/** Command groups (`plugin`, `adapter`): a first word that only prefixes commands. */
export function groupOf(word: string): CommandDecl[] {
  return COMMANDS.filter((c) => c.name.startsWith(word + " "));
}
