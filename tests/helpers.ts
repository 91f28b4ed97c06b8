/**
 * Shared test helpers: temp folders with a real connectors.json, the fixture plugins folder,
 * a log sink that records what the host's logger wrote, and the real CLI as a child process.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Writable } from "node:stream";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const FIXTURE_PLUGINS = path.join(ROOT, "tests", "fixtures", "plugins");
export const BIN = path.join(ROOT, "bin", "patchbay.mjs");

const made: string[] = [];

export function tempDir(prefix = "pb-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes `config` as connectors.json in a fresh temp folder (plugins default to the fixtures). */
export function writeConfig(config: Record<string, unknown>, dir = tempDir()): { dir: string; file: string } {
  const file = path.join(dir, "connectors.json");
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify({ plugins: [FIXTURE_PLUGINS], ...config }, null, 2));
  return { dir, file };
}

/**
 * A pino destination that keeps every line, to assert what reached the log. `waitFor(text)`
 * resolves when a line containing `text` has arrived (at once if one has): tests wait on the
 * log line itself, never on a fixed sleep.
 */
export function logSink(): {
  stream: Writable & { write(chunk: string): boolean };
  lines: string[];
  text(): string;
  waitFor(text: string, timeoutMs?: number): Promise<void>;
} {
  const lines: string[] = [];
  const waiting: { text: string; resolve: () => void }[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      const all = lines.join("\n");
      for (const w of waiting.splice(0)) all.includes(w.text) ? w.resolve() : waiting.push(w);
      done();
    },
  });
  // The bounds below only turn a hang into a failure; a loaded machine needs them generous.
  const waitFor = (text: string, timeoutMs = 60_000): Promise<void> => {
    if (lines.join("\n").includes(text)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`no log line containing ${JSON.stringify(text)} within ${timeoutMs} ms:\n${lines.join("\n")}`),
          ),
        timeoutMs,
      );
      waiting.push({
        text,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  };
  return { stream: stream as never, lines, text: () => lines.join("\n"), waitFor };
}

/** Resolves once `check()` is true, checking again on every turn of the event loop (for state no event announces). */
export async function until(check: () => boolean, timeoutMs = 60_000, what = "the condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `patchbay` bin in `cwd`. */
export function runCli(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; input?: string; timeoutMs?: number; nodeArgs?: string[] },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), BIN, ...args], {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `patchbay ${args.join(" ")} did not exit within ${opts.timeoutMs ?? 90_000} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, opts.timeoutMs ?? 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}

/**
 * Node flags that make a process fail to load any module whose URL matches `refused` (a module
 * hook, registered with --import): proves what a command does not load.
 */
export function refuseModules(refused: RegExp): string[] {
  const dir = tempDir("pb-guard-");
  const hooks = path.join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `const refused = new RegExp(${JSON.stringify(refused.source)});
export async function resolve(spec, ctx, next) {
  const r = await next(spec, ctx);
  if (refused.test(r.url)) throw new Error("loaded " + r.url);
  return r;
}\n`,
  );
  const register = path.join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(new URL(`file://${hooks}`).href)});\n`,
  );
  return ["--import", register];
}

/** Retries while an instance restarts; the restart itself is what is under test. */
export async function waitFor<T>(fn: () => Promise<T>, attempts = 2_400): Promise<T> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await fn();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw last;
}

/** Cuts `bytes` at pseudo-random places (a fixed seed: the same cuts every run), empty pieces included: how a pipe may deliver a stream. */
export function cutPieces(bytes: Buffer, seed: number, maxPiece: number): Buffer[] {
  const pieces: Buffer[] = [];
  let state = seed;
  for (let at = 0; at < bytes.length; ) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    const size = state % (maxPiece + 1);
    pieces.push(bytes.subarray(at, at + size));
    at += size;
  }
  return pieces;
}

/** mulberry32: a small seeded generator for property tests, so the seed in a failure reproduces it. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
