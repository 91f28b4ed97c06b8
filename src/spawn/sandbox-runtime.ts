/**
 * "isolation": "sandbox": the process runtime's child, started through bubblewrap
 * (Debian's `bubblewrap`, the sandbox Flatpak uses). The child gets its own PID namespace (it
 * cannot signal the host or see it in /proc), its own network namespace (no network at all
 * unless the manifest's permissions.net grants some), and a mount namespace holding only what
 * Node needs (/usr, /lib*, /bin, /etc/ssl), the plugin folder read-only, Patchbay's runtime
 * files read-only, its own jiti cache and the declared permissions.fs paths: a symlink shipped
 * in the plugin folder resolves inside that tree, so it reaches nothing else. Its environment
 * is only permissions.env (its channel to the host is fd 3, not a variable), it dies with the host
 * (--die-with-parent), holds no capabilities, and Node's permission model still runs inside.
 *
 * Where bwrap is missing or cannot create namespaces, starting throws PB_ERR_SANDBOX_UNAVAILABLE:
 * never a silent downgrade to "process".
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { pbError } from "../errors.js";
import { runtimeReadPaths, processEntryPath } from "../paths.js";
import { startProcess, type ProcessRuntimeOptions } from "./process-runtime.js";
import type { WorkerRuntime } from "./runtime.js";

export interface SandboxRuntimeOptions extends Omit<ProcessRuntimeOptions, "wrap"> {
  /** The manifest's permissions.net is not empty: the child shares the host's network. */
  net: boolean;
}

/** What Node itself needs to run, read-only (those that exist on this machine). */
const SYSTEM_PATHS = [
  "/usr",
  "/lib",
  "/lib64",
  "/lib32",
  "/bin",
  "/sbin",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/alternatives",
];
/** Name resolution, only when the network is granted. */
const NET_PATHS = ["/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf"];

/** The only devices the child sees. */
const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];

const probed = new Map<string, string | null>();

/** The bwrap to use: PATCHBAY_BWRAP, else bwrap on PATH or in /usr/bin. */
function bwrapPath(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.PATCHBAY_BWRAP) return env.PATCHBAY_BWRAP;
  const dirs = [...(env.PATH ?? "").split(path.delimiter).filter(Boolean), "/usr/bin", "/usr/local/bin"];
  for (const d of dirs) if (existsSync(path.join(d, "bwrap"))) return path.join(d, "bwrap");
  return null;
}

/**
 * Why the sandbox cannot run here (null when it can): bwrap missing, or a trial run that cannot
 * create the namespaces (a container without user namespaces, a seccomp profile). Probed once
 * per bwrap path and process.
 */
export function sandboxProblem(bwrap = bwrapPath()): string | null {
  if (!bwrap) return "bwrap was not found (PATCHBAY_BWRAP is not set and there is no bwrap on PATH)";
  if (probed.has(bwrap)) return probed.get(bwrap)!;
  const trial = spawnSync(bwrap, ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  const problem = trial.error
    ? `${bwrap} could not be run: ${trial.error.message}`
    : trial.status !== 0
      ? `${bwrap} cannot create namespaces here: ${(trial.stderr || `exit ${trial.status}`).trim().split("\n")[0]}`
      : null;
  probed.set(bwrap, problem);
  return problem;
}

export function startSandbox(options: SandboxRuntimeOptions): WorkerRuntime {
  const bwrap = bwrapPath();
  const problem = sandboxProblem(bwrap);
  if (problem || !bwrap) {
    throw pbError(
      "PB_ERR_SANDBOX_UNAVAILABLE",
      `${options.task.instance} is configured with "isolation": "sandbox", but ${problem}. Install Debian's bubblewrap package (apt-get install bubblewrap); the instance was not started outside the sandbox.`,
      { instance: options.task.instance, package: "bubblewrap" },
    );
  }
  return startProcess({
    ...options,
    wrap: (resolved, nodeArgs) => ({
      execPath: bwrap,
      execArgv: [...sandboxArgs(resolved, options.net), "--", process.execPath, ...nodeArgs],
    }),
  });
}

/** bwrap's arguments for one child: namespaces, then the mounts, read-only first. */
function sandboxArgs(opts: ProcessRuntimeOptions, net: boolean): string[] {
  // No --clearenv: bwrap's own environment is already only the child's (permissions.env); the
  // channel to the host is the inherited fd 3 (contract/frame-channel.ts).
  // No --new-session: setsid() puts the child in a scheduler autogroup of its own, which doubled
  // the call round trip on a busy machine (bench/sandbox.mjs). What it guards against, TIOCSTI
  // keystroke injection into the host's terminal, needs a tty descriptor: the child has none
  // (stdin is /dev/null, stdout/stderr are pipes) and its /dev holds no tty to open (below).
  const args = ["--unshare-all", ...(net ? ["--share-net"] : []), "--die-with-parent", "--cap-drop", "ALL"];
  // "*" (everything) becomes everything read-only: the sandbox never exposes the host's files for writing wholesale.
  if (opts.fsPaths.includes("*")) args.push("--ro-bind", "/", "/");
  const ro = new Set<string>();
  for (const p of [...SYSTEM_PATHS, ...(net ? NET_PATHS : [])]) if (existsSync(p)) ro.add(p);
  ro.add(realpathSync(process.execPath));
  for (const p of [opts.task.pluginDir, ...runtimeReadPaths(), path.dirname(processEntryPath())])
    if (existsSync(p)) ro.add(realpathSync(p));
  // The fresh /proc, /dev and /tmp first: a later mount stacks over an earlier one, so a tmpfs on
  // /tmp after the binds would hide a Patchbay or plugin folder that lives under /tmp.
  // Not `--dev /dev`: that also makes /dev/tty, the host's controlling terminal.
  args.push("--proc", "/proc", "--tmpfs", "/dev");
  for (const d of DEVICES) args.push("--dev-bind", d, d);
  args.push("--tmpfs", "/tmp");
  for (const p of ro) args.push("--ro-bind", p, p);
  const rw = new Set<string>();
  if (opts.task.jitiCacheDir) rw.add(opts.task.jitiCacheDir);
  for (const p of opts.fsPaths) {
    if (p !== "*") rw.add(nearestExisting(path.resolve(opts.task.configDir, p)));
  }
  for (const p of rw) args.push("--bind", p, p);
  // The plugin folder again read-only on top: a declared path above it must not make it writable.
  args.push(
    "--ro-bind",
    realpathSync(opts.task.pluginDir),
    realpathSync(opts.task.pluginDir),
    "--chdir",
    realpathSync(opts.task.pluginDir),
  );
  return args;
}

/**
 * A declared path that does not exist yet (a database file the plugin will create) is reached
 * through its nearest existing folder, bound writable; Node's permission model inside still
 * limits writes to the declared path itself.
 */
function nearestExisting(p: string): string {
  let base = p;
  while (!existsSync(base) && path.dirname(base) !== base) base = path.dirname(base);
  return realpathSync(base);
}
