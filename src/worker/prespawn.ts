/**
 * The thread's side of a server started ahead of its instance (spawn/prespawn.ts says why): a
 * warm thread takes the one the host's thread spawned for it (held-process.ts), or spawns it
 * before it loads anything else, and leaves it where mcp-remote looks for it
 * (plugins/mcp-remote/src/child-server.ts, which takes it only when it would spawn exactly the
 * same). Whatever the instance does not take by the end of its create() is killed, and so is a
 * server started for another instance than the one that took the thread.
 */
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import type { HeldHandover, PrespawnOrder } from "../contract/rpc.js";
import { HeldProcess } from "./held-process.js";

/**
 * node:child_process only when a server is spawned here: it brings net, dgram and their bindings,
 * ~0.7 ms of every thread's start (measured on Node 20), and few threads ever spawn one.
 */
const childProcess = () => createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");

/** The slot mcp-remote reads; a plugin's code cannot import the runtime, so it is a registered symbol. */
const SLOT = Symbol.for("patchbay.prespawned");

interface Prespawned {
  instance: string;
  /** What was spawned, as mcp-remote compares it: the program, its arguments, folder and environment. */
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  proc: ChildProcess;
  /** Resolves once the process runs; rejects with the spawn error. Never unhandled. */
  spawned: Promise<void>;
}

const slot = globalThis as { [SLOT]?: Prespawned };

/** Spawns `order` as mcp-remote would (child-server.ts); returns its pid (undefined when the spawn failed at once). */
export function prespawn(order: PrespawnOrder): number | undefined {
  const proc = childProcess().spawn(programOf(order), order.args, {
    env: order.env,
    cwd: order.cwd,
    stdio: ["pipe", "pipe", "pipe"],
    shell: false,
    windowsHide: true,
  });
  const spawned = new Promise<void>((resolve, reject) => {
    proc.once("spawn", resolve);
    proc.once("error", reject);
  });
  spawned.catch(() => {}); // read by mcp-remote when it adopts the child
  proc.on("error", () => {});
  proc.stdin?.on("error", () => {});
  leave(order, proc, spawned);
  return proc.pid;
}

/**
 * Takes the server the host's thread spawned for `order` (spawn/held-server.ts) and leaves it where
 * prespawn() would; resolves to its pid, or undefined when the host had let it go (then its
 * instance spawns its own, as without a head start).
 */
export async function adoptHeld(order: PrespawnOrder, held: HeldHandover): Promise<number | undefined> {
  const proc = await HeldProcess.take(held);
  if (!proc) return undefined;
  // The part of a ChildProcess that mcp-remote uses (held-process.ts); it runs already.
  leave(order, proc as unknown as ChildProcess, Promise.resolve());
  return proc.pid;
}

/** "node" means this Node, as in mcp-remote. */
const programOf = (order: PrespawnOrder): string => (order.command === "node" ? process.execPath : order.command);

function leave(order: PrespawnOrder, proc: ChildProcess, spawned: Promise<void>): void {
  const { instance, args, cwd, env } = order;
  slot[SLOT] = { instance, file: programOf(order), args, cwd, env, proc, spawned };
}

/** A server is waiting in this thread for `instance` (or for any instance, without one). */
export function prespawnedFor(instance?: string): boolean {
  const p = slot[SLOT];
  return p !== undefined && (instance === undefined || p.instance === instance);
}

/** Kills the server waiting in this thread, if any: its instance did not take it. */
export function dropPrespawned(): void {
  const p = slot[SLOT];
  if (!p) return;
  slot[SLOT] = undefined;
  p.proc.kill("SIGKILL");
}
