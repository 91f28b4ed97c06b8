/**
 * Why the CLI ends worker threads itself before it exits: Node's process.exit() joins every worker
 * thread, and a thread stuck in native code (a plugin's synchronous call into the file system or an
 * addon that never returns) cannot be interrupted, so the join, and the process, never ends; a
 * `boot` printed its report and hung. Threads still running are terminated with a bound; if one
 * does not stop, the process ends itself by SIGKILL (status 137), saying so with its code.
 */
import type { Worker } from "node:worker_threads";
import { pbError } from "../errors.js";
import { renderError } from "./render.js";

/** How long threads still running at exit get to stop once terminated. */
const STOP_MS = 2_000;

/**
 * Resolves once no thread of `live` is left; never returns when one cannot be stopped. `live` is
 * kept by bin/patchbay.mjs from its first line, since boot and serve start threads before the CLI loads.
 */
export async function endThreads(live: Set<Worker>, err: (text: string) => void, code: number): Promise<void> {
  if (live.size === 0) return;
  const stopped = Promise.all([...live].map((w) => w.terminate().catch(() => undefined)));
  await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, STOP_MS).unref())]);
  if (live.size === 0) return;
  err(
    renderError(
      pbError(
        "PB_ERR_THREAD_STUCK",
        `${live.size} worker thread${live.size === 1 ? " is" : "s are"} stuck in native code and cannot be stopped, so Patchbay ends itself by SIGKILL (exit status 137, in place of ${code}).`,
        { threads: live.size, exitCode: code },
      ),
      false,
    ),
  );
  process.kill(process.pid, "SIGKILL");
  await new Promise(() => undefined);
}
