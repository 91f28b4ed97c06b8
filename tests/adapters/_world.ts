/**
 * A temp world for adapter tests: a project folder with its own connectors.json (the adapter test
 * fixtures and the bundled plugins), a HOME, and fake client binaries on PATH. Hooks run as real
 * `patchbay hook` processes in it.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runCli, tempDir, type CliResult } from "../helpers.js";

export const ADAPTER_FIXTURES = fileURLToPath(new URL("./fixtures/plugins", import.meta.url));

export interface World {
  root: string;
  project: string;
  home: string;
  bin: string;
  configFile: string;
  env: Record<string, string>;
  stateDir: string;
  logFile: string;
  writeConfig(config: Record<string, unknown>): void;
  hook(
    adapter: string,
    event: string | null,
    payload: unknown,
    opts?: { args?: string[]; env?: Record<string, string>; timeoutMs?: number },
  ): Promise<CliResult & { ms: number }>;
  cli(args: string[], opts?: { env?: Record<string, string>; input?: string }): Promise<CliResult>;
  log(): string;
  fakeClient(command: string, output: string): void;
}

/**
 * `ownBound`: the test is about the hook's time bound itself, so its runs get only the bound the
 * test sets (flag, variable, config or the 5 s default). Every other world's runs get a 20 s
 * PATCHBAY_HOOK_TIMEOUT_MS: until a run has read connectors.json its bound is the default 5 s, and
 * on a loaded machine starting node and loading the CLI alone can take that long.
 */
export function makeWorld(config: Record<string, unknown> = {}, opts: { ownBound?: boolean } = {}): World {
  const runEnv: Record<string, string> = opts.ownBound ? {} : { PATCHBAY_HOOK_TIMEOUT_MS: "20000" };
  const root = tempDir("pb-adapters-");
  const project = path.join(root, "project");
  const home = path.join(root, "home");
  const bin = path.join(root, "bin");
  for (const d of [project, home, bin]) mkdirSync(d, { recursive: true });
  const configFile = path.join(project, "connectors.json");
  const env = { HOME: home, PATH: [bin, "/usr/bin", "/bin"].join(":") };
  const stateDir = path.join(project, ".patchbay");
  const world: World = {
    root,
    project,
    home,
    bin,
    configFile,
    env,
    stateDir,
    logFile: path.join(stateDir, "hooks.log"),
    writeConfig(c) {
      // Tests of a decision must not fail open because a loaded machine is slow: they get a 20 s bound
      // unless they set one (the bound itself is tested with explicit small values).
      const adapters = Object.fromEntries(
        Object.entries((c.adapters ?? {}) as Record<string, { config?: Record<string, unknown> }>).map(
          ([name, inst]) => [
            name,
            typeof inst === "object" ? { ...inst, config: { hook_timeout_ms: 20_000, ...(inst.config ?? {}) } } : inst,
          ],
        ),
      );
      writeFileSync(
        configFile,
        JSON.stringify({ plugins: [ADAPTER_FIXTURES], ...c, ...(c.adapters ? { adapters } : {}) }, null, 2) + "\n",
      );
    },
    async hook(adapter, event, payload, opts = {}) {
      const started = performance.now();
      const input = typeof payload === "string" ? payload : JSON.stringify(payload);
      const args = ["hook", adapter, ...(event ? [event] : []), "--config", configFile, ...(opts.args ?? [])];
      const result = await runCli(args, {
        cwd: project,
        env: { ...env, ...runEnv, ...opts.env },
        input,
        timeoutMs: opts.timeoutMs ?? 60_000,
      });
      return { ...result, ms: Math.round(performance.now() - started) };
    },
    cli: (args, opts = {}) =>
      runCli([...args, "--config", configFile], { cwd: project, env: { ...env, ...opts.env }, input: opts.input }),
    log() {
      try {
        return readFileSync(path.join(stateDir, "hooks.log"), "utf8");
      } catch {
        return "";
      }
    },
    fakeClient(command, output) {
      const file = path.join(bin, command);
      writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' '${output}'\n`);
      chmodSync(file, 0o755);
    },
  };
  world.fakeClient("fxclient", "fxclient 9.9.9");
  world.fakeClient("example", "example 1.0.0");
  world.fakeClient("claude", "2.0.14 (Claude Code)");
  world.writeConfig(config);
  return world;
}

/** The hook log's JSON lines. */
export function logEntries(world: World): Record<string, unknown>[] {
  return world
    .log()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
