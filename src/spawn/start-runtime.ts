/**
 * Which runtime carries one instance, from its settings: its group's shared thread, the host's own
 * thread ("host"), a thread of its own (the default), or a child process ("process"; "sandbox": that
 * child under bubblewrap). Apart from the lifecycle (instance-worker.ts), which treats every runtime
 * alike once it has one.
 */
import type { InstanceTask } from "../contract/rpc.js";
import type { WorkerGroup } from "./group-runtime.js";
import { startOnHostThread } from "./host-runtime.js";
import { startProcess } from "./process-runtime.js";
import type { Isolation, WorkerRuntime } from "./runtime.js";
import { startSandbox } from "./sandbox-runtime.js";
import { startThread } from "./thread-runtime.js";

/** What decides an instance's runtime (InstanceWorker's options carry these). */
export interface RuntimeOptions {
  task: InstanceTask;
  /** The worker's whole process.env: only the variables the manifest's permissions.env names. */
  env: Record<string, string>;
  /** @default "thread" */
  isolation?: Isolation;
  /** "sandbox" only: the manifest grants network access (permissions.net is not empty). */
  net?: boolean;
  /**
   * "process"/"sandbox" only: the manifest's permissions.fs (relative to task.configDir); the child may read and
   * write them.
   */
  fsPaths?: readonly string[];
  maxMemoryMb: number;
  /** Group mode: the instance shares this group's thread (thread isolation only). */
  group?: WorkerGroup;
}

/** Where what a runtime hears besides the channel goes. */
export interface RuntimeListeners {
  /** A thread's junk on the worker pool's own channel (dropped, never read by tinypool). */
  onJunk(what: string): void;
  /** A child's stdout/stderr, one bounded line at a time. */
  onOutput(stream: "stdout" | "stderr", line: string): void;
}

/** Starts the runtime `opts` ask for; throws a coded error when it cannot start at all (no usable bwrap). */
export function startRuntime(opts: RuntimeOptions, on: RuntimeListeners): WorkerRuntime {
  const { task, env, maxMemoryMb } = opts;
  if (opts.group) return opts.group.attach(task);
  if (opts.isolation === "host") return startOnHostThread(task);
  if (opts.isolation !== "process" && opts.isolation !== "sandbox") {
    return startThread({ task, env, maxMemoryMb, onJunk: on.onJunk });
  }
  const child = { task, env, maxMemoryMb, fsPaths: opts.fsPaths ?? [], onOutput: on.onOutput };
  return opts.isolation === "sandbox" ? startSandbox({ ...child, net: opts.net ?? false }) : startProcess(child);
}
