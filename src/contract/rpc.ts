/**
 * The one RPC contract between the host and a plugin worker: the task that starts a worker, and
 * the messages each side sends over the instance's persistent channel (a MessagePort for a
 * thread, the IPC channel for a process-isolated instance). Both sides import this file and
 * nothing else of each other.
 */
import type { MessagePort } from "node:worker_threads";
import type { WireError } from "../errors.js";
import type { Kind } from "./kinds.js";
import type { SpanRecord } from "./span-records.js";

/** What a worker needs to load and serve one instance, whichever runtime carries it. */
export interface InstanceTask {
  /** "section/name", used in every message the worker sends about itself. */
  instance: string;
  kind: Kind;
  pluginName: string;
  pluginDir: string;
  /** Absolute path of the plugin's entry module, already checked to stay inside pluginDir. */
  entryPath: string;
  capabilities: string[];
  /** The kind's required methods, checked on the created object before the worker reports ready. */
  requiredMethods: string[];
  /** The instance's raw config (after ${VAR} resolution); validated by the plugin's schema in the worker. */
  config: unknown;
  /** Folder of connectors.json: path-marked config fields resolve against it. */
  configDir: string;
  /** Instances this one may call through ctx.connectors ("section/name"). */
  grants: string[];
  /** Absolute module paths that "patchbay/plugin" and "patchbay/testing" resolve to for the plugin. */
  aliases: Record<string, string>;
  jitiCacheDir: string | false;
}

/** The tinypool task that turns a pool thread into one instance's server. */
/** What a thread started ahead of its instance runs first: it loads the worker runtime (spawn/warm-threads.ts). */
export interface WarmTask {
  /** The module every plugin imports ("patchbay/plugin" in the runtime bundle), imported now. */
  warm: string;
  /** A stdio server the thread starts first, for the instance expected to take it (worker/prespawn.ts). */
  spawn?: PrespawnOrder;
  /** That server, spawned already by the host's thread: the thread takes its stdio (spawn/held-server.ts). */
  held?: HeldHandover;
}

/**
 * A server the host's thread spawned for a warm thread: its pid, the host's ends of its stdio
 * (descriptor numbers, the thread's only once it has asked for them and the host said so), and
 * the port on which the thread asks for them or for a signal and the host tells the server's exit.
 */
export interface HeldHandover {
  pid: number;
  stdin: number;
  stdout: number;
  stderr: number;
  port: MessagePort;
}

/**
 * What the last boot of a config gave the bundled mcp-remote of one thread-isolated instance to
 * spawn (spawn/prespawn.ts), kept in catalog.json under its stamp: the command, its arguments,
 * its resolved working folder and the names (never the values) of its environment.
 */
export interface PrespawnSpec {
  instance: string;
  command: string;
  args: string[];
  cwd: string;
  env: string[];
}

/** A PrespawnSpec with its environment's values, as the head start reads them (gateway/stdio-prespawn.ts). */
export interface PrespawnOrder extends Omit<PrespawnSpec, "env"> {
  env: Record<string, string>;
}

export interface ServeTask extends InstanceTask {
  port: MessagePort;
  /** The thread's whole process.env, set before the plugin loads (the thread may predate the instance). */
  env: Record<string, string>;
}

// --- process isolation: the child's channel (contract/frame-channel.ts), before the serve loop ---

/**
 * The first message a process-isolated child receives: its task (secrets travel here, never in
 * argv or env). The socket holds it until the child's entry reads its fd 3.
 */
export interface TaskMessage {
  t: "task";
  task: InstanceTask;
}

/**
 * A child that dies of an uncaught error writes one line starting with this to its stderr just
 * before Node prints the stack; the host quotes it as the crash reason, as a thread's serve
 * task rejection would say.
 */
export const FATAL_LINE_PREFIX = "patchbay-worker-fatal: ";

// --- host → worker ---

export interface CallMessage {
  t: "call";
  id: number;
  method: string;
  args: unknown[];
  /** Absolute deadline (Date.now() clock) after which the host has already given up. */
  deadline: number;
  /** W3C traceparent of the host's span for this call; present only when the call is traced. */
  tp?: string;
}

export interface CancelMessage {
  t: "cancel";
  id: number;
  reason: string;
}

export interface CloseMessage {
  t: "close";
}

/** The answer to a plugin's ctx.connectors call. */
export interface GrantResultMessage {
  t: "grant-result";
  id: number;
  ok: boolean;
  value?: unknown;
  error?: WireError;
}

/**
 * Several calls posted in one tick, as one message: one postMessage and one
 * 'message' event each way instead of one per call. Only calls are batched; every other
 * message first flushes the calls queued before it, so the order on the channel is unchanged.
 */
export interface CallBatchMessage {
  t: "batch";
  msgs: CallMessage[];
}

/**
 * The most entries one batch may hold, either way. A sender splits a longer queue into several
 * batches; the host treats a worker's batch above it as malformed as a whole (one bounded check
 * before it reads an entry).
 */
export const MAX_BATCH = 1_024;

/**
 * A sender posts its queue as soon as it holds this many messages, without waiting for the end
 * of the turn: the two sides then overlap (the worker runs the first calls while the host still
 * issues the rest) instead of taking turns with one big batch each. A policy both senders share,
 * not a rule the receiver checks.
 */
export const EAGER_BATCH = 16;

export type HostToWorker = CallMessage | CancelMessage | CloseMessage | GrantResultMessage | CallBatchMessage;

// --- worker → host ---

/**
 * Sent as soon as the config is parsed, before create() runs: a plugin may log a secret while it
 * starts, and messages on the channel arrive in order, so the host knows the value first.
 */
export interface SecretsMessage {
  t: "secrets";
  secrets: string[];
}

export interface ReadyMessage {
  t: "ready";
  /** Values of config fields the plugin's schema marks secret: the host scrubs them everywhere. */
  secrets: string[];
  /** Methods the created object implements. */
  methods: string[];
}

export interface InitFailedMessage {
  t: "init-failed";
  error: WireError;
  secrets: string[];
}

export interface ResultMessage {
  t: "result";
  id: number;
  ok: boolean;
  value?: unknown;
  error?: WireError;
}

/**
 * Results settled in one tick, as one message. Only `result` entries may be batched:
 * they are the one hot message of every call. Logs, progress, grant calls and lifecycle messages
 * are never batched; each first flushes the results queued before it (the order on the channel
 * is unchanged). The host checks every entry as it checks a lone message; a bad entry is dropped
 * and counted as one malformed message, a batch that is not a list of at most MAX_BATCH entries
 * is malformed as a whole.
 */
export interface ResultBatchMessage {
  t: "batch";
  msgs: ResultMessage[];
}

export interface LogMessage {
  t: "log";
  level: "trace" | "debug" | "info" | "warn" | "error" | "fatal";
  msg: string;
  data?: Record<string, unknown>;
}

/** A plugin calling another instance through ctx.connectors. */
export interface GrantCallMessage {
  t: "grant-call";
  id: number;
  target: string;
  method: string;
  args: unknown[];
}

export interface ClosedMessage {
  t: "closed";
}

export type WorkerToHost =
  | SecretsMessage
  | ReadyMessage
  | InitFailedMessage
  | ResultMessage
  | LogMessage
  | GrantCallMessage
  | ClosedMessage
  | ProgressMessage
  | ResourceUpdatedMessage
  | ListChangedMessage
  | SpansMessage;

/**
 * The plugin's own spans of traced call `id` (span-records.ts), sent once, just before its
 * result, and only for a call that came with a traceparent. Untrusted: the host checks each
 * record and drops those of a call that is not pending or was not traced.
 */
export interface SpansMessage {
  t: "spans";
  id: number;
  spans: SpanRecord[];
}

// --- worker → host: progress of a call in flight ---

/**
 * A plugin's ctx.progress() during call `id` (mcp-remote relays MCP notifications/progress).
 * Untrusted like every worker message: the host checks the numbers, bounds the text and drops
 * progress for calls that are no longer pending.
 */
export interface ProgressMessage {
  t: "progress";
  id: number;
  progress: number;
  total?: number;
  message?: string;
}

// --- worker → host: a subscribed resource changed (mcp subscribe_resource) ---

/** The longest resource URI a subscription or an update may name (characters). */
export const MAX_RESOURCE_URI_CHARS = 8_192;

/**
 * A plugin's ctx.resourceUpdated(uri) (mcp-remote relays MCP notifications/resources/updated).
 * Not tied to a call: it may come at any time. Untrusted like every worker message: the uri is
 * checked (a non-empty string of at most MAX_RESOURCE_URI_CHARS, else the message is dropped as
 * malformed), the rate is capped by RpcClient, and only the URIs someone subscribed to reach
 * anyone (the gateway matches each against its clients' subscriptions).
 */
export interface ResourceUpdatedMessage {
  t: "resource-updated";
  uri: string;
}

/** The lists a plugin may say changed (mcp-remote relays MCP notifications/{tools,prompts,resources}/list_changed). */
export const CHANGEABLE_LISTS = ["tools", "prompts", "resources"] as const;
export type ChangeableList = (typeof CHANGEABLE_LISTS)[number];

/**
 * A plugin's ctx.listChanged(list): what it offers changed, so the host's readers (the gateway's
 * catalog, which checks definitions against their pins before any client sees them) read it
 * again. Any time; untrusted: anything but a known list name drops the message as malformed, and
 * the reader, not the worker, decides how often it reads (the gateway: once a second at most).
 */
export interface ListChangedMessage {
  t: "list-changed";
  list: ChangeableList;
}
