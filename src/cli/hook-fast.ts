/**
 * The fast path of `patchbay hook <adapter> [event]`, run by bin/patchbay.mjs before the CLI
 * loads: a PreToolUse answered from the pre-compiled adapter cache (src/adapter/hook-cache.ts) in
 * this process, with no worker, zod or jiti — a deny costs about one node start instead of ten.
 *
 * It handles only what it can answer exactly as the full path would, from a cache whose key still
 * matches: a beforeTool event with guards.beforeWrite the only effective guard, and any other
 * event with nothing to inject (no inbox, or nothing pending) whose effective lifecycle method the
 * fastHook module exports. Anything else — no cache, a stale one, pending messages, a module that
 * throws — goes to the full runner with the payload already read (`fallback`). The bound holds
 * here too: past it, allow and exit.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { resolveConfigPath } from "../config/source.js";
import { INJECTION, LIFECYCLE } from "../adapter/decide-tables.js";
import { readHookCache, loadFastModule } from "../adapter/hook-cache.js";
import { appendHookLog, hookLogPath, stateDirFor } from "../adapter/state.js";
import { readStdin, write } from "./hook-stdin.js";

const DEFAULT_BOUND_MS = 5_000;

export interface FastArgs {
  adapter: string;
  event: string | null;
  config: string | undefined;
  timeoutMs: number | undefined;
}

/** `hook <adapter> [event] [--config F] [--timeout-ms N]`, or null for anything else (the full CLI parses it). */
export function parseFastArgs(argv: readonly string[]): FastArgs | null {
  if (argv[0] !== "hook") return null;
  const positionals: string[] = [];
  let config: string | undefined;
  let timeoutMs: number | undefined;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--config" || a === "--timeout-ms") {
      const v = argv[++i];
      if (v === undefined) return null;
      if (a === "--config") config = v;
      else if (/^\d+$/.test(v) && Number(v) > 0) timeoutMs = Number(v);
      else return null;
    } else if (a.startsWith("--config=")) config = a.slice(9);
    else if (a.startsWith("-")) return null;
    else positionals.push(a);
  }
  if (positionals.length < 1 || positionals.length > 2) return null;
  return { adapter: positionals[0], event: positionals[1] ?? null, config, timeoutMs };
}

export type Fallback = (payload: string | Error) => Promise<number>;

/** bin/patchbay.mjs calls this first: the exit code of a hook it ran, or null to run the whole CLI. */
export async function hookMain(argv: readonly string[]): Promise<number | null> {
  const args = parseFastArgs(argv);
  if (!args) return null;
  return fastHook(args, async (payload) => (await import("./commands/hook.js")).hookWithPayload(args, payload));
}

export async function fastHook(
  args: FastArgs,
  fallback: Fallback,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const envBound = Number(env.PATCHBAY_HOOK_TIMEOUT_MS);
  let boundMs = args.timeoutMs ?? (Number.isInteger(envBound) && envBound > 0 ? envBound : DEFAULT_BOUND_MS);
  let logFile: string | null = null;
  let settled = false;
  // The bound, from process start: past it the hook allows (no output, exit 0) and says so.
  const arm = (): NodeJS.Timeout =>
    setTimeout(
      () => {
        if (settled) return;
        // The same line as the full runner's timeout, so hooks.log reads alike whichever path was cut.
        const message = `the hook did not finish within ${boundMs} ms`;
        if (logFile)
          appendHookLog(logFile, {
            adapter: args.adapter,
            eventArg: args.event,
            decision: "fail-open",
            reason: "timeout",
            code: "PB_ERR_HOOK_TIMEOUT",
            message,
            fast: true,
            ms: Math.round(performance.now()),
          });
        process.stderr.write(`patchbay hook ${args.adapter}: failed open (timeout): ${message}\n`);
        process.exit(0);
      },
      Math.max(1, boundMs - performance.now()),
    );
  // Where the log goes is known before stdin is read, so even a payload that never ends leaves its line.
  let stateDir: string | null = null;
  try {
    stateDir = stateDirFor(path.dirname(resolveConfigPath({ config: args.config, env }).file), env);
    logFile = hookLogPath(stateDir);
  } catch {
    stateDir = null;
  }
  let timer = arm();
  const text: string | Error = await readStdin().catch((err: Error) => err);
  if (text instanceof Error) {
    settled = true;
    clearTimeout(timer);
    return fallback(text); // the full runner reports an unreadable or oversized payload and fails open
  }
  const hand = (): Promise<number> => {
    settled = true;
    clearTimeout(timer);
    return fallback(text);
  };
  const cacheHit = stateDir ? readHookCache(stateDir, args.adapter, env) : null;
  if (!cacheHit) return hand();
  const cache = cacheHit;
  if (cache.timeoutMs && args.timeoutMs === undefined && !(Number.isInteger(envBound) && envBound > 0)) {
    boundMs = cache.timeoutMs;
    clearTimeout(timer);
    timer = arm();
  }
  let outcome: { stdout: string; stderr: string; exitCode: number } | null = null;
  let facts: Record<string, unknown>;
  let note: string;
  try {
    const payload: unknown = JSON.parse(text);
    const slim = (await import(pathToFileURL(cache.slim).href)) as Record<string, unknown>;
    const mod = loadFastModule(cache, slim);
    const event = mod.normalizeHook(payload, args.event);
    if (!event || typeof event.kind !== "string") return hand();
    const on = (key: string) => cache.effective.includes(key);
    facts = {
      adapter: args.adapter,
      eventArg: args.event,
      kind: event.kind,
      tool: event.tool,
      targets: event.targets.length,
      client: cache.client,
      effective: cache.effective,
      fast: true,
    };
    if (event.kind === "beforeTool") {
      // Only the write guard is compiled; another effective guard needs the adapter's worker.
      if (cache.effective.some((k) => k.startsWith("guards.") && k !== "guards.beforeWrite")) return hand();
      note = on("guards.beforeWrite")
        ? "no guard objected"
        : "unguarded: guards.beforeWrite is not certified for this client";
      if (on("guards.beforeWrite") && event.targets.length > 0) {
        if (typeof mod.guardWrite !== "function") return hand();
        const verdict = mod.guardWrite(event, cache.protect);
        if (verdict.decision === "deny") {
          const reason =
            verdict.reason?.trim() || `Patchbay's guards.beforeWrite guard denied this ${event.tool ?? "tool"} call.`;
          const o = mod.denyOutcome(reason, event);
          if (
            typeof o?.stdout !== "string" ||
            typeof o.stderr !== "string" ||
            !Number.isInteger(o.exitCode) ||
            o.exitCode < 0 ||
            o.exitCode > 255
          )
            return hand();
          outcome = o;
          note = "guards.beforeWrite denied";
        }
      } else if (event.targets.length === 0) note = "no guard objected";
    } else {
      // Nothing to inject is decided here; pending messages are rendered and marked by the full path.
      const injection = INJECTION[event.kind];
      note = `nothing to do for ${event.kind}`;
      if (injection) {
        if (!on(injection) || !on("delivery.nextTurn"))
          note = `${injection} and delivery.nextTurn are not both effective`;
        else if (!cache.inbox) note = "no inbox configured";
        else if (await hasPending(cache.slim, cache.inbox)) return hand();
        else note = "no pending messages";
      }
      const life = LIFECYCLE[event.kind];
      if (life && on(life.key)) {
        const method = (mod as unknown as Record<string, unknown>)[life.method];
        if (typeof method !== "function") return hand();
        await method(event);
      }
    }
  } catch {
    return hand();
  }
  settled = true;
  clearTimeout(timer);
  const ms = Math.round(performance.now());
  appendHookLog(logFile!, { ...facts, decision: outcome ? "deny" : "allow", note, ms });
  if (outcome) {
    if (outcome.stdout) await write(process.stdout, outcome.stdout);
    if (outcome.stderr) await write(process.stderr, outcome.stderr);
    return outcome.exitCode;
  }
  return 0;
}

/** Whether the recipient has messages waiting (better-sqlite3, opened read-only in effect: nothing is marked here). */
async function hasPending(slim: string, inbox: { path: string; recipient: string }): Promise<boolean> {
  const { openInboxStore } = (await import(
    pathToFileURL(path.join(path.dirname(slim), "inbox.js")).href
  )) as typeof import("../adapter-sdk/inbox.js");
  const store = openInboxStore(inbox.path, { busyTimeoutMs: 1_000 });
  try {
    return store.pending(inbox.recipient, 1).length > 0;
  } finally {
    store.close();
  }
}
