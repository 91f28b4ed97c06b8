/**
 * A stdio MCP server as a child process, started before the MCP SDK is loaded.
 *
 * Why not the SDK's StdioClientTransport: it spawns the child only in start(), after the worker
 * has loaded the SDK (~140 ms of CommonJS: zod, ajv, the client). Started at create(), a
 * server boots on the other core while the SDK loads, which was the longest stretch of
 * `npm start` (the bundled demo server takes ~250 ms to answer initialize). So this module
 * imports no SDK code: it spawns, and holds what the child says until a transport adopts it.
 *
 * The child gets what the SDK would give it: the SDK's default environment (the variables
 * sudo keeps: HOME, LOGNAME, PATH, SHELL, TERM, USER; none that holds a shell function) with the
 * configured `env` over it, stdin/stdout pipes, stderr piped for the log, no shell.
 */
import { spawn, type ChildProcess } from "node:child_process";

/** The SDK's DEFAULT_INHERITED_ENV_VARS on POSIX (@modelcontextprotocol/sdk 1.32, client/stdio.js). */
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

export interface ServerCommand {
  command: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string>;
}

/** A spawned server: its process and how its start ended (spawned, or the spawn error). */
export interface ChildServer {
  proc: ChildProcess;
  /** Resolves once the process runs; rejects with the spawn error (ENOENT, EACCES...). Never unhandled. */
  spawned: Promise<void>;
}

export function defaultEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith("()")) env[key] = value;
  }
  return env;
}

export function startServer(cmd: ServerCommand): ChildServer {
  // "node" means this Node: works without PATH and matches the host's version.
  const file = cmd.command === "node" ? process.execPath : cmd.command;
  const args = cmd.args ?? [];
  const env = { ...defaultEnvironment(), ...(cmd.env ?? {}) };
  const early = adopt(file, args, cmd.cwd, env);
  if (early) return early;
  const proc = spawn(file, args, {
    env,
    cwd: cmd.cwd,
    stdio: ["pipe", "pipe", "pipe"],
    shell: false,
    windowsHide: true,
  });
  const spawned = new Promise<void>((resolve, reject) => {
    proc.once("spawn", resolve);
    proc.once("error", reject);
  });
  spawned.catch(() => {}); // read by whoever adopts the child; never an unhandled rejection
  proc.on("error", () => {}); // a later error (a failed kill) is the transport's to report, never the worker's crash
  // A pipe error (EPIPE after the child died) must not crash the worker: the transport reports the loss.
  proc.stdin?.on("error", () => {});
  return { proc, spawned };
}

/** Where Patchbay's thread runtime leaves a server it started ahead of this instance (src/worker/prespawn.ts). */
const PRESPAWNED = Symbol.for("patchbay.prespawned");

interface Prespawned extends ChildServer {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * The server this thread started before the plugin loaded (the last boot of the same config
 * spawned it, so the first call need not wait for the plugin's load before the server's own
 * start), taken only when it is exactly what would be spawned now; otherwise it is killed.
 */
function adopt(file: string, args: string[], cwd: string | undefined, env: Record<string, string>): ChildServer | null {
  const slot = globalThis as { [PRESPAWNED]?: Prespawned };
  const early = slot[PRESPAWNED];
  if (!early) return null;
  slot[PRESPAWNED] = undefined;
  const same =
    early.file === file &&
    early.cwd === cwd &&
    early.args.length === args.length &&
    early.args.every((a, i) => a === args[i]) &&
    sameEnv(early.env, env);
  if (same) return { proc: early.proc, spawned: early.spawned };
  early.proc.kill("SIGKILL");
  return null;
}

function sameEnv(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

export function exited(proc: ChildProcess): boolean {
  return proc.exitCode !== null || proc.signalCode !== null;
}
