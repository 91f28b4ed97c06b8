/**
 * Finds an adapter's client binary on PATH and runs `command versionArgs`, bounded. The host does
 * this (a worker's environment has no PATH); the adapter's detect() interprets the output. Hooks
 * run often and a client's --version can take hundreds of ms, so the output is cached per binary,
 * keyed by its real path, size and mtime: an upgrade of the client invalidates the entry.
 * A client that names its npm package is not run at all: its version is that package's
 * package.json, found next to the binary's real path.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { ClientProbe } from "../adapter-sdk/contract.js";
import { writeFileAtomic } from "./fs-atomic.js";

/**
 * Generous: a client written in JavaScript loads its whole bundle to print a version (seconds on a
 * busy machine), the answer is cached per binary, and a hook's own deadline bounds it anyway.
 */
export const PROBE_TIMEOUT_MS = 20_000;
const MAX_OUTPUT = 4_096;

export interface ProbeOptions {
  env: Record<string, string | undefined>;
  timeoutMs?: number;
  /** JSON file caching probe outputs (usually <stateDir>/clients.json); none = always run. */
  cacheFile?: string | null;
}

/** The absolute path `command` resolves to on env.PATH, or null. */
export function findOnPath(command: string, env: Record<string, string | undefined>): string | null {
  const candidates = command.includes("/")
    ? [path.resolve(command)]
    : (env.PATH ?? "")
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  for (const file of candidates) {
    try {
      if (statSync(file).isFile()) {
        accessSync(file, constants.X_OK);
        return file;
      }
    } catch {
      // not here
    }
  }
  return null;
}

interface CacheEntry {
  size: number;
  mtimeMs: number;
  args: string[];
  output: string;
  exitCode: number | null;
}

export async function probeClient(
  client: { command: string; versionArgs: readonly string[]; packageName?: string },
  opts: ProbeOptions,
): Promise<ClientProbe> {
  const found = findOnPath(client.command, opts.env);
  const base = { command: client.command, path: found, output: "", exitCode: null, error: null };
  if (!found) return { ...base, present: false };
  const packaged = client.packageName ? packageVersion(found, client.packageName) : null;
  if (packaged) return { ...base, present: true, output: packaged, exitCode: 0 };
  let real = found;
  let stat: { size: number; mtimeMs: number } | null = null;
  try {
    real = realpathSync(found);
    stat = statSync(real);
  } catch {
    // probe anyway, uncached
  }
  const key = real;
  const cache = opts.cacheFile ? readCache(opts.cacheFile) : {};
  const hit = stat ? cache[key] : undefined;
  if (
    hit &&
    stat &&
    hit.size === stat.size &&
    hit.mtimeMs === stat.mtimeMs &&
    JSON.stringify(hit.args) === JSON.stringify(client.versionArgs)
  ) {
    return { ...base, present: true, output: hit.output, exitCode: hit.exitCode };
  }
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS;
  const run = await runBounded(found, [...client.versionArgs], opts.env, timeoutMs);
  if (run.timedOut)
    return {
      ...base,
      present: false,
      error: `${client.command} ${client.versionArgs.join(" ")} timed out after ${timeoutMs} ms`,
    };
  if (run.spawnError) return { ...base, present: false, error: run.spawnError };
  if (opts.cacheFile && stat) {
    cache[key] = {
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      args: [...client.versionArgs],
      output: run.output,
      exitCode: run.exitCode,
    };
    try {
      writeFileAtomic(opts.cacheFile, JSON.stringify(cache, null, 2) + "\n");
    } catch {
      // a cache that cannot be written only costs time
    }
  }
  return {
    ...base,
    present: true,
    output: run.output,
    exitCode: run.exitCode,
    error: run.exitCode === 0 ? null : `exited with code ${run.exitCode}`,
  };
}

/** How far up from the binary's real path its package.json may be (bin/, dist/, bundle/ folders). */
const PACKAGE_DEPTH = 4;

/**
 * The version in the package.json of `name` that holds the binary's real path, or null (not an
 * npm install, another package, an unreadable file): the caller then runs the client.
 */
export function packageVersion(binary: string, name: string): string | null {
  let dir: string;
  try {
    dir = path.dirname(realpathSync(binary));
  } catch {
    return null;
  }
  for (let i = 0; i < PACKAGE_DEPTH; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === name && typeof pkg.version === "string" && /^\d+\.\d+\.\d+[\w.+-]{0,64}$/.test(pkg.version))
        return pkg.version;
      if (pkg.name !== undefined) return null;
    } catch {
      // no package.json here, or not JSON: look further up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

function readCache(file: string): Record<string, CacheEntry> {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8"));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

interface RunResult {
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  spawnError: string | null;
}

/**
 * Runs the probe in its own process group and, on timeout, kills the whole group and answers at
 * once: a client wrapper script that forks (and keeps our pipes open) cannot stretch the bound.
 */
function runBounded(
  file: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<RunResult> {
  return new Promise((resolve) => {
    let output = "";
    let settled = false;
    const done = (r: RunResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, output: r.output.slice(0, MAX_OUTPUT) });
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, {
        env: env as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
        windowsHide: true,
      });
    } catch (err) {
      return resolve({ output: "", exitCode: null, timedOut: false, spawnError: `${file}: ${(err as Error).message}` });
    }
    const collect = (d: Buffer) => {
      if (output.length < MAX_OUTPUT) output += d.toString("utf8");
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      done({ output, exitCode: null, timedOut: true, spawnError: null });
    }, timeoutMs);
    child.on("error", (err: NodeJS.ErrnoException) =>
      done({ output, exitCode: null, timedOut: false, spawnError: `${file}: ${err.code ?? err.message}` }),
    );
    child.on("close", (code) => done({ output, exitCode: code ?? 1, timedOut: false, spawnError: null }));
  });
}
