/**
 * Group mode (`"worker": "<group>"` in connectors.json): trusted instances share one worker
 * thread, each on its own MessagePort, so a hundred connectors cost one thread's start and
 * memory plus their own. Each member is still a WorkerRuntime to its InstanceWorker (its own
 * RpcClient: deadlines, cancellation; its own guard on the host: allowed_tools, grants). What
 * members share: the thread's memory, env and event loop; a crash ends every member, and each
 * restarts as after its own crash, with the culprit named in its reason where the thread knew it.
 */
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import type { InstanceTask } from "../contract/rpc.js";
import { portTransport } from "../rpc/transport.js";
import { groupEntryPath } from "../paths.js";
import { REASON_WAIT_MS, sleep, STOP_TIMEOUT_MS, YOUNG_GENERATION_MB, type WorkerRuntime } from "./runtime.js";

/** What group-entry.ts posts before the thread dies of an uncaught error. */
interface CulpritMessage {
  t: "culprit";
  instance: string | null;
  error: string;
}

/** One live thread of a group; a new one replaces it after a crash. */
interface Generation {
  worker: Worker;
  exited: Promise<void>;
  reason: string | null;
}

/**
 * One named group: its thread's env is the union of its members' permitted env and its heap
 * limit the sum of theirs (both fixed before the first member starts: a thread cannot change them).
 */
export class WorkerGroup {
  private current: Generation | null = null;
  private readonly env: Record<string, string> = {};
  private maxMemoryMb = 0;
  private members = 0;

  constructor(readonly name: string) {}

  /** Declares a member before any starts. */
  plan(env: Record<string, string>, maxMemoryMb: number): void {
    Object.assign(this.env, env);
    this.maxMemoryMb += maxMemoryMb;
  }

  /** Starts `task` in the group's thread (starting the thread first if it is not running). */
  attach(task: InstanceTask): WorkerRuntime {
    const gen = this.current ?? this.startThread();
    const { port1, port2 } = new MessageChannel();
    this.members++;
    // Did the member's serve loop end its own channel (closed, or failed to load)? Then the thread is fine.
    let ended = false;
    let detached = false;
    port1.on("close", () => (ended = true));
    gen.worker.postMessage({ t: "attach", task, port: port2 }, [port2 as MessagePort]);
    const detach = () => {
      if (detached) return;
      detached = true;
      this.members--;
      port1.close();
    };
    return {
      transport: portTransport(port1),
      exitReason: () => Promise.race([gen.exited, sleep(REASON_WAIT_MS)]).then(() => gen.reason),
      destroy: async () => {
        const stuck = !ended && this.current === gen;
        detach();
        // A member that did not end its own channel is stuck (a busy loop blocks the whole
        // thread): only ending the thread frees it. The last member leaving ends it too.
        if (stuck || (this.members === 0 && this.current === gen)) await this.stopThread(gen);
      },
    };
  }

  private startThread(): Generation {
    const worker = new Worker(groupEntryPath(), {
      env: { ...this.env },
      resourceLimits: {
        maxOldGenerationSizeMb: Math.max(64, this.maxMemoryMb),
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
      },
      stdout: false,
      stderr: false,
    });
    let culprit: CulpritMessage | null = null;
    const gen: Generation = { worker, exited: Promise.resolve(), reason: null };
    worker.on("message", (msg: CulpritMessage) => {
      if (msg?.t === "culprit" && typeof msg.error === "string")
        culprit = {
          t: "culprit",
          instance: typeof msg.instance === "string" ? msg.instance : null,
          error: msg.error.slice(0, 500),
        };
    });
    let error: (Error & { code?: string }) | null = null;
    worker.on("error", (err: Error & { code?: string }) => (error = err));
    // The reason is written at 'exit', not at 'error': 'error' can overtake the thread's last
    // message (the culprit), while every message it sent is delivered before 'exit'.
    gen.exited = new Promise((resolve) =>
      worker.once("exit", (code) => {
        const who = culprit?.instance ? ` (culprit: ${culprit.instance})` : " (culprit unknown)";
        if (error)
          gen.reason = `its group worker "${this.name}" ${error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "ran out of memory" : `died: ${(culprit?.error ?? error.message).split("\n")[0]}`}${who}`;
        else gen.reason = `its group worker "${this.name}" exited with code ${code}${who}`;
        if (this.current === gen) this.current = null;
        setImmediate(resolve);
      }),
    );
    this.current = gen;
    return gen;
  }

  private async stopThread(gen: Generation): Promise<void> {
    if (this.current === gen) this.current = null;
    await Promise.race([gen.worker.terminate().catch(() => undefined), sleep(STOP_TIMEOUT_MS)]);
  }
}

/** The groups of one host, by name. */
export class WorkerGroups {
  private readonly groups = new Map<string, WorkerGroup>();

  get(name: string): WorkerGroup {
    let group = this.groups.get(name);
    if (!group) this.groups.set(name, (group = new WorkerGroup(name)));
    return group;
  }
}
