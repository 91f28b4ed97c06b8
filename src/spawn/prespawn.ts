/**
 * A stdio server started ahead of its instance. The first tools/call after a client spawns
 * `serve --mcp` waits for the upstream server's own start (~150 ms for a Node server), and that
 * start used to begin only once the CLI had loaded the config and the instance's thread had
 * loaded mcp-remote (~190 ms after the spawn). When the head start answered from the last boot
 * of the same config (its stamp checked), the host's thread spawns what that boot gave mcp-remote
 * to spawn as soon as it has read it, and the warm thread meant for that instance takes the
 * server's stdio (held-server.ts; where that is not possible, the thread spawns it before it loads
 * anything else, worker/prespawn.ts). mcp-remote adopts the child only when it would spawn exactly
 * that: the same command, arguments, folder and environment (plugins/mcp-remote/src/child-server.ts).
 * Anything else is killed unused.
 *
 * Only the bundled mcp-remote, in a thread, with a `command` and no `env` of its own: the
 * configured environment holds secrets, and catalog.json keeps no secret. Here: what a boot
 * records of its instances, read by the gateway when it saves the head start's answers.
 */
import path from "node:path";
import type { InstanceTask, PrespawnSpec } from "../contract/rpc.js";
import { bundledPluginsDir } from "../paths.js";

/** What mcp-remote's child gets of its thread's environment (child-server.ts: the SDK's default set). */
const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/** The spawn of the bundled mcp-remote's stdio server for `task` (in a thread with `env`), or null. */
export function prespawnSpecOf(task: InstanceTask, env: Record<string, string>): PrespawnSpec | null {
  if (task.pluginName !== "mcp-remote" || path.resolve(task.pluginDir) !== path.join(bundledPluginsDir(), "mcp-remote"))
    return null;
  const c = task.config;
  if (typeof c !== "object" || c === null || Array.isArray(c)) return null;
  const { command, args = [], cwd = ".", env: own, url } = c as Record<string, unknown>;
  if (typeof command !== "string" || command === "" || url !== undefined || own !== undefined) return null;
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string") || typeof cwd !== "string") return null;
  return {
    instance: task.instance,
    command,
    args,
    // As the worker resolves a path-marked field against the config's folder (worker/load-plugin.ts).
    cwd: cwd === "" || cwd.startsWith(":") || path.isAbsolute(cwd) ? cwd : path.resolve(task.configDir, cwd),
    env: INHERITED_ENV.filter((name) => env[name] !== undefined && !env[name].startsWith("()")),
  };
}

/** Kills a server started ahead of an instance that never took its thread. */
export function killPrespawned(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}
