/**
 * A stdio server started ahead of its instance by the host's own thread (prespawn.ts says why a
 * server starts early at all). A warm thread spawning it itself could do so only once Node had
 * started the thread and loaded its first module: ~110 ms after the host asked, on a 2-core
 * machine, all of it added to the first tools/call, which waits for that server's own start. The
 * host's thread spawns it at once, and the thread takes over its stdio later.
 *
 * Node cannot hand a child's pipes to another thread: they are libuv handles of this thread's
 * loop. So the server's stdio are named pipes (FIFOs, in a private folder removed at once), and
 * this thread keeps its ends as bare descriptors (no handle, nothing reads them) until the thread
 * asks for them; who owns them is decided here, on one thread: handed over (the thread's sockets
 * close them from then on) or closed here (released before the thread asked), never both, so no
 * descriptor is closed twice. They are opened here, not in the thread: Node closes at a thread's
 * exit whatever fs.open gave that thread, which a socket over it has closed already, and a
 * number closed twice may be another thread's by then (seen: libuv's signal pipe, an abort).
 * The server's exit is reaped here, where it was spawned, and told to the thread; the thread asks
 * here for a signal, so nothing signals a pid that may already be another process's.
 *
 * Where any of this is not possible (not Linux, no mkfifo, the spawn failing at once) nothing is
 * held and the thread spawns the server itself, as before (worker/prespawn.ts).
 */
import type { ChildProcess } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { MessageChannel } from "node:worker_threads";
import type { HeldHandover, PrespawnOrder } from "../contract/rpc.js";

/** node:child_process only when a server is held (the loads of `boot`, which holds none, stay as they were). */
const childProcess = () => createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");

/** The signals a thread may have sent to its server: what mcp-remote's close() and a drop send. */
const SIGNALS = new Set<string>(["SIGTERM", "SIGKILL", "SIGINT"]);

export interface HeldServer {
  /** What the thread is given (its port transferred with it). */
  handover: HeldHandover;
  /** Kills the server if it still runs and closes the host's ends if no thread took them: its thread is gone unused. */
  release(): void;
}

/**
 * Spawns each order's server from this thread with its stdio held for a thread to take; null for
 * one where that cannot be done (see above).
 */
export function holdServers(orders: readonly PrespawnOrder[]): (HeldServer | null)[] {
  if (process.platform !== "linux" || orders.length === 0) return orders.map(() => null);
  let dir: string | undefined;
  try {
    dir = mkdtempSync(path.join(tmpdir(), "patchbay-stdio-"));
    const fifos = orders.map((_, i) => ["stdin", "stdout", "stderr"].map((end) => path.join(dir!, `${i}.${end}`)));
    // One mkfifo for all: each is a process's start on this thread (~8 ms on a 2-core machine).
    childProcess().execFileSync("mkfifo", ["-m", "600", ...fifos.flat()], { stdio: "ignore" });
    return orders.map((order, i) => spawnOn(order, fifos[i]));
  } catch {
    return orders.map(() => null);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

function spawnOn(order: PrespawnOrder, [stdin, stdout, stderr]: string[]): HeldServer | null {
  const ours: number[] = [];
  const theirs: number[] = [];
  let proc: ChildProcess;
  try {
    const { O_RDONLY, O_WRONLY, O_NONBLOCK } = constants;
    // The server's ends are blocking, as a pipe's are (many programs fail reading a non-blocking
    // stdin); the host's are non-blocking, as a socket over them needs. A FIFO's end opens without
    // waiting only while the other end is open, hence the order, and the brief reader that lets the
    // host's writing end open first.
    const opener = openSync(stdin, O_RDONLY | O_NONBLOCK);
    ours.push(openSync(stdin, O_WRONLY | O_NONBLOCK));
    theirs.push(openSync(stdin, O_RDONLY));
    closeSync(opener);
    for (const fifo of [stdout, stderr]) {
      ours.push(openSync(fifo, O_RDONLY | O_NONBLOCK));
      theirs.push(openSync(fifo, O_WRONLY));
    }
    // As mcp-remote spawns it (plugins/mcp-remote/src/child-server.ts): "node" is this Node.
    proc = childProcess().spawn(order.command === "node" ? process.execPath : order.command, order.args, {
      env: order.env,
      cwd: order.cwd,
      stdio: theirs,
      shell: false,
      windowsHide: true,
    });
    proc.on("error", () => {}); // a failed spawn shows as no pid; a failed kill needs no report
  } catch {
    for (const fd of ours) closeSync(fd);
    return null;
  } finally {
    for (const fd of theirs) closeSync(fd);
  }
  if (proc.pid === undefined) {
    for (const fd of ours) closeSync(fd);
    return null;
  }
  return handOver(proc, proc.pid, ours);
}

function handOver(proc: ChildProcess, pid: number, ours: number[]): HeldServer {
  const { port1: here, port2: there } = new MessageChannel();
  let owned = true;
  const closeOurs = () => {
    if (!owned) return;
    owned = false;
    for (const fd of ours) closeSync(fd);
  };
  const exited = () => proc.exitCode !== null || proc.signalCode !== null;
  // No thread will close this server any more: its thread is gone, or was let go unused.
  const end = () => {
    closeOurs();
    if (!exited()) proc.kill("SIGKILL");
  };
  const release = () => {
    end();
    // A thread still to ask learns it from its queue (a port closed before its other end was
    // transferred tells that end nothing).
    here.postMessage({ t: "gone" });
    here.close();
  };
  // The thread's messages are checked like any other: it asks for the descriptors, or for one of a few signals.
  here.on("message", (msg: unknown) => {
    const m = msg as { t?: unknown; signal?: unknown } | null;
    if (m?.t === "take") {
      here.postMessage({ t: owned ? "yours" : "gone" });
      owned = false;
    } else if (m?.t === "kill" && typeof m.signal === "string" && SIGNALS.has(m.signal) && !exited())
      proc.kill(m.signal as NodeJS.Signals);
  });
  // Its thread ended (the instance stopped, or never came).
  here.on("close", end);
  proc.once("exit", (code, signal) => here.postMessage({ t: "exit", code, signal }));
  // Neither keeps the host running: the thread that took the server keeps it alive as long as needed.
  proc.unref();
  here.unref();
  const [stdin, stdout, stderr] = ours;
  return { handover: { pid, stdin, stdout, stderr, port: there }, release };
}
