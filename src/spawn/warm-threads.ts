/**
 * Worker threads started before the host knows what will run in them. A boot is CPU-bound, and
 * until the config is read and the plugins are found (the CLI's own load included: ~0.25 s on a
 * 2-core machine) only one core works. A thread started then boots Node and loads the worker
 * runtime (entry, serve loop, "patchbay/plugin" with zod: ~0.12 s of CPU each) on the idle core,
 * and the first instances start in it as if that had already been done.
 *
 * bin/patchbay.mjs starts them for `patchbay boot`, for a `serve --mcp` its head start answered,
 * and for `serve --http` only those that start a server (see there why not for every `serve`),
 * from this module as tsc wrote it (the CLI bundle keeps it out, so both hold the same instance:
 * scripts/bundle-cli.mjs).
 *
 * A warm thread is started with an empty environment and the default heap limit: an instance
 * takes one only when its heap limit is that default, and its serve task carries the environment
 * its manifest permits, which the thread sets before any plugin code runs (worker/entry.ts). What
 * no instance took is stopped once the boot has started everything (releaseWarmThreads).
 */
import { Tinypool } from "tinypool";
import type { InstanceTask, PrespawnOrder, PrespawnSpec, WarmTask } from "../contract/rpc.js";
import { authoringAliases, workerEntryPath } from "../paths.js";
import { DEFAULTS } from "../config/defaults.js";
import { type HeldServer, holdServers } from "./held-server.js";
import { killPrespawned, prespawnSpecOf } from "./prespawn.js";
import { sleep, STOP_TIMEOUT_MS, YOUNG_GENERATION_MB } from "./runtime.js";

/**
 * A thread not taken yet; `instance`: the one a server was started for (prespawn.ts), by this
 * thread (`held`, held-server.ts) or by the warm thread, whose pid it reported.
 */
interface Idle {
  pool: Tinypool;
  instance?: string;
  pid?: number;
  held?: HeldServer;
}

const idle: Idle[] = [];
/** Threads instances of this process started with the default heap limit, warm or not. */
let defaultThreads = 0;
/** What those instances' mcp-remote spawns, by instance (prespawn.ts): the next start's head start starts it. */
const spawns = new Map<string, PrespawnSpec>();

/**
 * The options of every thread-isolated instance's pool (thread-runtime.ts), warm or not, so a
 * warm one is the same thread as a cold one but for its environment, set later.
 */
export function threadPoolOptions(env: Record<string, string>, maxMemoryMb: number) {
  return {
    filename: workerEntryPath(),
    minThreads: 0,
    maxThreads: 1,
    // Atomics.wait would freeze the plugin's sockets and timers between tasks; the serve task never ends anyway.
    useAtomics: false,
    isolateWorkers: false,
    idleTimeout: 2 ** 31 - 1,
    env,
    resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    // No terminateTimeout: tinypool's destroy() does not await the promise that timeout rejects, so
    // a thread slower to terminate than the timeout (a loaded machine, a blocking syscall) became an
    // unhandled rejection that killed the host process after a clean boot. Callers bound the wait.
  };
}

/**
 * Starts `count` threads that load the worker runtime and wait for an instance; the first ones
 * each get a server from `orders`, for the instance it names (prespawn.ts), spawned from this
 * thread at once (held-server.ts) or, where that is not possible, by the warm thread first.
 */
export function prestartThreads(count: number, orders: readonly PrespawnOrder[] = []): void {
  // Every server before any thread: a thread's start takes this thread's CPU the servers wait for.
  const held = holdServers(orders.slice(0, count));
  for (let i = 0; i < count; i++) {
    const pool = new Tinypool(threadPoolOptions({}, DEFAULTS.max_memory_mb));
    const order = orders[i];
    const entry: Idle = { pool, instance: order?.instance, held: held[i] ?? undefined };
    // A thread that fails to warm up while idle is dropped: the instance that would have taken it
    // starts a thread of its own. Once taken, the pool is the instance's, and so is reporting it.
    const handover = held[i]?.handover;
    const task: WarmTask = {
      warm: authoringAliases()["patchbay/plugin"],
      ...(order ? { spawn: order } : {}),
      ...(handover ? { held: handover } : {}),
    };
    pool.run(task, handover ? { transferList: [handover.port] } : {}).then(
      (pid: unknown) => {
        if (typeof pid === "number") entry.pid = pid;
      },
      () => {
        const at = idle.indexOf(entry);
        if (at < 0) return;
        idle.splice(at, 1);
        dropServer(entry);
        void pool.destroy().catch(() => undefined);
      },
    );
    idle.push(entry);
  }
}

/** Ends the server started for a thread no instance took. */
function dropServer(entry: Idle): void {
  if (entry.held) entry.held.release();
  else killPrespawned(entry.pid);
}

/**
 * A warm thread for an instance with this heap limit, or null (none left, or a limit of its own).
 * A thread that started a server is for the instance it started it for, and for no other.
 */
export function takeWarmThread(
  maxMemoryMb: number,
  task?: InstanceTask,
  env: Record<string, string> = {},
): Tinypool | null {
  if (maxMemoryMb !== DEFAULTS.max_memory_mb) return null;
  defaultThreads++;
  const spec = task ? prespawnSpecOf(task, env) : null;
  if (spec) spawns.set(spec.instance, spec);
  let at = task ? idle.findIndex((w) => w.instance === task.instance) : -1;
  if (at < 0) at = idle.findIndex((w) => w.instance === undefined);
  return at < 0 ? null : idle.splice(at, 1)[0].pool;
}

/** The servers this process's thread instances had mcp-remote spawn (gateway/head-start-answers.ts). */
export function prespawnSpecsStarted(): PrespawnSpec[] {
  return [...spawns.values()];
}

/**
 * How many threads a warm start of this process could have handed its instances so far: a
 * `serve --mcp` answered by its head start warms that many next time (gateway/head-start-answers.ts).
 */
export function defaultThreadsStarted(): number {
  return defaultThreads;
}

/** Stops the warm threads no instance took. */
export async function releaseWarmThreads(): Promise<void> {
  const left = idle.splice(0);
  for (const w of left) dropServer(w);
  await Promise.race([Promise.all(left.map((w) => w.pool.destroy().catch(() => undefined))), sleep(STOP_TIMEOUT_MS)]);
}
