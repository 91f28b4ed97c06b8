/**
 * "isolation": "process": the instance runs in a forked child under Node's permission model,
 * with the same serve loop and RPC as a thread (worker/process-entry.ts), over a socket pair on
 * the child's fd 3 carrying bounded structured-clone frames (contract/frame-channel.ts says why not Node's
 * IPC channel: a child could crash the host through it).
 *
 * Why node:child_process and not tinypool's `runtime: "child_process"`: that runtime
 * cannot transfer a MessagePort, and its `channel` option can multiplex raw IPC messages next to
 * its own task protocol, but (tinypool 2.2) it adds TINYPOOL_WORKER_ID to the child's env (the
 * env must hold only the manifest's permissions.env), pipes the child's stdout and stderr
 * straight into the host's (a plugin's raw write would corrupt `--json` output and bypass secret
 * scrubbing), hides the child's exit code, signal and stderr behind "Worker exited
 * unexpectedly" (so an out-of-memory death cannot be named), and calls the channel's onClose
 * only on terminate(). Spawning ourselves costs these ~150 lines and keeps one runtime contract.
 *
 * What the permission model does here (Node 20, `--experimental-permission`; it is a seat belt,
 * not a sandbox): file reads are limited to the plugin folder, Patchbay's dist/ and the
 * node_modules holding its dependencies, the jiti cache and the paths the manifest declares in
 * permissions.fs; writes to the jiti cache and the declared paths; no child processes, worker
 * threads, native addons or WASI. It does not cover the network, env (we pass only the
 * manifest's variables), or fds already open; native addons, if ever allowed, bypass it; and it
 * is not inherited by workers or children (which is why both stay denied). See
 * docs/isolation.md.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync } from "node:fs";
import path from "node:path";
import { FATAL_LINE_PREFIX, type InstanceTask, type TaskMessage } from "../contract/rpc.js";
import { processEntryPath, runtimeReadPaths } from "../paths.js";
import type { RpcTransport } from "../rpc/transport.js";
import { encodeFrame, FrameReader } from "../contract/frame-channel.js";
import { LOG_MSG_MAX } from "./log-limit.js";
import { REASON_WAIT_MS, STOP_TIMEOUT_MS, sleep, type WorkerRuntime } from "./runtime.js";

export interface ProcessRuntimeOptions {
  task: InstanceTask;
  /** The child's whole environment: only the variables the manifest's permissions.env names. */
  env: Record<string, string>;
  maxMemoryMb: number;
  /**
   * The manifest's permissions.fs; relative paths resolve against the connectors.json folder
   * (task.configDir), "*" is everything.
   */
  fsPaths: readonly string[];
  /** A line the child wrote to its stdout or stderr outside the logger (Node's own fatal output, a raw write). */
  onOutput(stream: "stdout" | "stderr", line: string): void;
  /**
   * Runs Node through a launcher (sandbox-runtime.ts: bwrap): given the resolved options and
   * Node's own flags, the program to start and the arguments before the entry module.
   */
  wrap?(opts: ProcessRuntimeOptions, nodeArgs: string[]): { execPath: string; execArgv: string[] };
}

/** SIGTERM first, SIGKILL after this long (a plugin may trap SIGTERM). */
const KILL_AFTER_MS = 1_000;
/** After the child exits, how long to wait for its channel to drain before reporting the close. */
const DRAIN_MS = 100;
/** The stderr lines kept to explain a death. */
const STDERR_TAIL = 40;

/** The child's command-line flags: the permission scopes, the heap limit, no warning noise. */
function processExecArgv(opts: Pick<ProcessRuntimeOptions, "task" | "maxMemoryMb" | "fsPaths">): string[] {
  const { task } = opts;
  const declared = opts.fsPaths.map((p) => (p === "*" ? p : path.resolve(task.configDir, p)));
  const writable = [...(task.jitiCacheDir ? [task.jitiCacheDir] : []), ...declared];
  const readable = [task.pluginDir, ...runtimeReadPaths(), ...writable];
  // Node 20 spells it --experimental-permission; 22.13+ made it stable as --permission.
  const args = [process.allowedNodeEnvironmentFlags.has("--permission") ? "--permission" : "--experimental-permission"];
  // One flag per path: Node 20.x rejects a comma-separated list, and a path may contain commas.
  for (const p of unique(readable)) args.push(`--allow-fs-read=${p}`);
  for (const p of unique(writable)) args.push(`--allow-fs-write=${p}`);
  args.push(`--max-old-space-size=${opts.maxMemoryMb}`);
  // "Permission is an experimental feature" on every start would drown the instance's log.
  if (process.allowedNodeEnvironmentFlags.has("--disable-warning")) args.push("--disable-warning=ExperimentalWarning");
  return args;
}

export function startProcess(options: ProcessRuntimeOptions): WorkerRuntime {
  const opts = { ...options, task: { ...options.task, jitiCacheDir: ownJitiCache(options.task) } };
  const nodeArgs = processExecArgv(opts);
  const launch = opts.wrap ? opts.wrap(opts, nodeArgs) : { execPath: process.execPath, execArgv: nodeArgs };
  const child = spawn(launch.execPath, [...launch.execArgv, processEntryPath()], {
    env: opts.env,
    stdio: ["ignore", "pipe", "pipe", "pipe"],
  });
  const stderrTail: string[] = [];
  readLines(child, "stdout", (line) => opts.onOutput("stdout", line));
  readLines(child, "stderr", (line) => {
    stderrTail.push(line);
    if (stderrTail.length > STDERR_TAIL) stderrTail.shift();
    if (!line.startsWith(FATAL_LINE_PREFIX)) opts.onOutput("stderr", line);
  });

  const stderrClosed = new Promise<void>((resolve) => (child.stderr ? child.stderr.once("close", resolve) : resolve()));
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  let spawnError: Error | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      resolve();
    });
    // Spawn failures arrive here (and no exit follows); so do sends on a channel that just
    // closed, which the exit reports anyway.
    child.on("error", (err) => {
      if (child.pid !== undefined) return;
      spawnError = err;
      resolve();
    });
  });

  // What the child did to the channel that made the host end it (contract/frame-channel.ts), for exitReason.
  let violation: string | null = null;
  const transport = processTransport(child, opts.task, exited, (why) => {
    violation ??= why;
    child.kill("SIGKILL");
  });
  const kill = async () => {
    if (exit || spawnError) return;
    child.kill("SIGTERM");
    if (await Promise.race([exited.then(() => true), sleep(KILL_AFTER_MS).then(() => false)])) return;
    child.kill("SIGKILL");
    await Promise.race([exited, sleep(STOP_TIMEOUT_MS)]);
  };
  // A child that closes its end of the channel but lives on can no longer be reached: kill it.
  // (A dying child's channel closes just before its exit; the delay lets that exit be the one reported.)
  channelOf(child).once("close", () => void sleep(KILL_AFTER_MS).then(kill));

  return {
    transport,
    // The child's stderr closes when it exits (it may not start processes that could hold it open).
    exitReason: () =>
      Promise.race([Promise.all([exited, stderrClosed]), sleep(REASON_WAIT_MS)]).then(() =>
        violation
          ? `it broke its channel to the host: it sent ${violation}`
          : describeExit(exit, spawnError, stderrTail),
      ),
    destroy: kill,
  };
}

/** The child's end of the channel: fd 3, a socket pair (stdio "pipe"). */
function channelOf(child: ChildProcess): Socket {
  return child.stdio[3] as Socket;
}

/**
 * The channel as an RpcTransport, after sending the child its task. The close is reported once
 * the child has exited and its channel has drained (results it sent just before dying still
 * settle their calls). A frame the host cannot read ends the reading, and `onViolation` ends the child.
 */
function processTransport(
  child: ChildProcess,
  task: InstanceTask,
  exited: Promise<void>,
  onViolation: (why: string) => void,
): RpcTransport {
  const socket = channelOf(child);
  let onMessage: (msg: unknown) => void = () => undefined;
  // Raw and unchecked: RpcClient checks every message before anything reads it.
  const reader = new FrameReader((msg) => onMessage(msg), onViolation);
  socket.on("data", (chunk: Buffer) => reader.push(chunk));
  // A write to a child that just died fails here; its exit reports it.
  socket.on("error", () => undefined);
  const closedChannel = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const closed = exited.then(() => Promise.race([closedChannel, sleep(DRAIN_MS)]));
  const post = (msg: unknown) => {
    // Serialized now: a value structured clone cannot carry throws here, as RpcTransport requires.
    const frame = encodeFrame(msg);
    if (!socket.destroyed) socket.write(frame);
  };
  post({ t: "task", task } satisfies TaskMessage);
  return {
    post,
    onMessage: (fn) => (onMessage = fn),
    onClose: (fn) => void closed.then(fn),
  };
}

/**
 * The child gets a jiti cache of its own plugin, never the shared one: a cache entry is trusted
 * when it ends with the hash of its source, so a child allowed to write the shared cache could
 * plant code that another plugin (or a thread inside the host) would then run. Without a
 * writable cache jiti silently turns its cache off and every start pays the cold transform.
 */
function ownJitiCache(task: InstanceTask): string | false {
  if (!task.jitiCacheDir) return false;
  const hash = createHash("sha256").update(task.pluginDir).digest("hex").slice(0, 12);
  const dir = path.join(task.jitiCacheDir, "process", `${task.pluginName}-${hash}`);
  try {
    mkdirSync(dir, { recursive: true });
    return dir;
  } catch {
    return false;
  }
}

function describeExit(
  exit: { code: number | null; signal: NodeJS.Signals | null } | null,
  spawnError: Error | null,
  stderr: readonly string[],
): string | null {
  if (spawnError) return `its process could not start: ${spawnError.message}`;
  if (stderr.some((l) => l.includes("JavaScript heap out of memory"))) return "its process ran out of memory";
  const fatal = stderr.find((l) => l.startsWith(FATAL_LINE_PREFIX));
  if (fatal) return `its process died: ${fatal.slice(FATAL_LINE_PREFIX.length)}`;
  if (!exit) return null;
  if (exit.signal) return `its process was killed by ${exit.signal}`;
  // Node's own fatal output (a module the child could not load or read) names the cause.
  const error = exit.code ? [...stderr].reverse().find((l) => /^\w*Error\b/.test(l.trim())) : undefined;
  return `its process exited with code ${exit.code}${error ? ` (${error.trim()})` : ""}`;
}

/**
 * The child's output, line by line. Only the new chunk is searched for line ends, and a line that
 * has not ended past LOG_MSG_MAX characters is passed on as it is (the log cuts it there anyway):
 * a child writing straight to its descriptor cannot make the host keep an endless line, or split
 * all of it again on every read.
 */
function readLines(child: ChildProcess, name: "stdout" | "stderr", onLine: (line: string) => void): void {
  const stream = child[name];
  if (!stream) return;
  stream.setEncoding("utf8");
  let buffered = "";
  stream.on("data", (chunk: string) => {
    let from = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", from)) {
      const line = buffered + chunk.slice(from, end);
      buffered = "";
      from = end + 1;
      if (line.trim()) onLine(line);
    }
    buffered += chunk.slice(from);
    if (buffered.length > LOG_MSG_MAX) {
      if (buffered.trim()) onLine(buffered);
      buffered = "";
    }
  });
  stream.on("end", () => {
    if (buffered.trim()) onLine(buffered);
  });
}

/**
 * Grants as the permission model needs them: absolute, symlinks resolved (it compares real
 * paths), duplicates dropped. Node 20 decides at startup whether a granted path is a folder; a
 * path that does not exist yet would be granted as a single file, so it is granted as "p/*",
 * which covers p itself and everything a plugin may later create under it.
 */
function unique(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    if (p === "*") {
      out.add(p);
      continue;
    }
    const abs = path.resolve(p);
    if (existsSync(abs)) {
      out.add(realpathSync(abs));
      continue;
    }
    let base = abs;
    while (!existsSync(base) && path.dirname(base) !== base) base = path.dirname(base);
    out.add(path.join(realpathSync(base), path.relative(base, abs), "*"));
  }
  return [...out];
}
