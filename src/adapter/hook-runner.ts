/**
 * `patchbay hook <adapter> [event]`: one client hook, start to finish, under one time bound.
 *
 * The bound covers the WHOLE run — reading stdin, loading config, starting the adapter's worker,
 * normalize, decide, render — measured from process start (performance.now()), not just the
 * handler (the reference system bounded only its handler). Whatever goes wrong — timeout, crash,
 * bad payload, unknown adapter, a contract violation — the hook fails open: no stdout, exit 0, so
 * the client carries on, and the reason is recorded in <state>/hooks.log and on stderr.
 *
 * Privacy: the payload never reaches a log. Log entries hold facts (kind, tool, decision, codes);
 * free-text messages are scrubbed of every string the payload carried, except the values that
 * normalization whitelisted into the event.
 */
import { Writable } from "node:stream";
import { toWire } from "../errors.js";
import {
  HookOutcomeSchema,
  NormalizedEventSchema,
  type HookOutcome,
  type NormalizedEvent,
} from "../adapter-sdk/contract.js";
import { deepFreeze } from "../adapter-sdk/event.js";
import { Scrubber } from "../secrets.js";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { resolveConfigPath } from "../config/source.js";
import {
  CERTIFICATION_FILE,
  currentPlatform,
  effectiveCapabilities,
  enabledKeys,
  loadCertification,
  localCertificationDir,
} from "./certification.js";
import { writeHookCache } from "./hook-cache.js";
import { ALLOW, decide, inboxPath, type Decision } from "./hook-decide.js";
import { detectClient, openAdapter, resolveAdapterInstance, type AdapterSession } from "./session.js";
import { appendHookLog, homeDir, hookLogPath, stateDirFor, type Env } from "./state.js";

const DEFAULT_HOOK_TIMEOUT_MS = 5_000;

export interface HookRunOptions {
  adapter: string;
  /** The event word from the command line (`patchbay hook claude-code PreToolUse`), or null. */
  event: string | null;
  /** Reads the client payload (stdin); part of the bounded run. */
  readPayload(): Promise<string>;
  config?: string;
  cwd?: string;
  env: Env;
  /** --timeout-ms; wins over PATCHBAY_HOOK_TIMEOUT_MS and the instance's hook_timeout_ms. */
  timeoutMs?: number;
  /** performance.now() value the bound counts from (default 0: process start). */
  startedAt?: number;
}

export interface HookRunResult {
  outcome: HookOutcome;
  decision: Decision["decision"] | "fail-open";
  /** Fail-open reason code, or null. */
  reason: string | null;
  message: string | null;
  logFile: string | null;
  /** Marks rendered messages delivered and stops the worker; call after the outcome is written. */
  finish(): Promise<void>;
}

class FailOpen extends Error {
  constructor(
    readonly reason: string,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

interface RunState {
  deadline: number;
  timedOut: boolean;
  session: AdapterSession | null;
  logFile: string | null;
  scrubber: Scrubber;
  facts: Record<string, unknown>;
}

function envTimeout(env: Env): number | undefined {
  const n = Number(env.PATCHBAY_HOOK_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

export async function runHook(opts: HookRunOptions): Promise<HookRunResult> {
  const start = opts.startedAt ?? 0;
  const fixed = opts.timeoutMs ?? envTimeout(opts.env);
  const state: RunState = {
    deadline: start + (fixed ?? DEFAULT_HOOK_TIMEOUT_MS),
    timedOut: false,
    session: null,
    logFile: null,
    scrubber: new Scrubber(),
    facts: { adapter: opts.adapter, eventArg: opts.event },
  };
  let onTimeout!: () => void;
  const timedOut = new Promise<"timeout">((resolve) => (onTimeout = () => resolve("timeout")));
  // The deadline can move once (when the instance's hook_timeout_ms is read), so re-arm until it is really past.
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = state.deadline - performance.now();
    if (left <= 0) return onTimeout();
    timer = setTimeout(arm, Math.ceil(left));
  };
  arm();

  const work = execute(opts, state, fixed === undefined);
  const first = await Promise.race([work, timedOut]).catch((err: unknown) => err);
  clearTimeout(timer!);
  const elapsed = Math.round(performance.now() - start);

  // A bound or an error that comes before the config is read must still leave its line.
  state.logFile ??= locateLog(opts);
  if (first === "timeout") {
    state.timedOut = true;
    // The losing work may still hold a worker: stop it when it settles (the CLI exits before that anyway).
    void work.catch(() => undefined).finally(() => void state.session?.close());
    return failOpen(
      state,
      new FailOpen(
        "timeout",
        `the hook did not finish within ${Math.round(state.deadline - start)} ms`,
        "PB_ERR_HOOK_TIMEOUT",
      ),
      elapsed,
    );
  }
  if (!(first && typeof first === "object" && "outcome" in first)) {
    let err =
      first instanceof FailOpen
        ? first
        : new FailOpen("error", (first as Error)?.message ?? String(first), toWire(first).code);
    // A call or start deadline (set to the bound) can fire a moment before the bound's own timer: it is the same timeout.
    if (
      err.code === "PB_ERR_CALL_TIMEOUT" ||
      err.code === "PB_ERR_PLUGIN_START_TIMEOUT" ||
      performance.now() >= state.deadline
    ) {
      err = new FailOpen(
        "timeout",
        `the hook did not finish within ${Math.round(state.deadline - start)} ms (${err.message})`,
        "PB_ERR_HOOK_TIMEOUT",
      );
    }
    const result = failOpen(state, err, elapsed);
    return { ...result, finish: () => closeQuietly(state.session) };
  }
  const decision = first as Decision;
  const ms = elapsed;
  log(state, { ...state.facts, decision: decision.decision, note: decision.note, ms });
  return {
    outcome: decision.outcome,
    decision: decision.decision,
    reason: null,
    message: null,
    logFile: state.logFile,
    async finish() {
      try {
        if (decision.deliver) {
          const { store, recipient, ids } = decision.deliver;
          const marked = store.markDelivered(recipient, ids, `${opts.adapter}`);
          store.close();
          log(state, { ...state.facts, delivered: marked });
        }
      } catch (err) {
        log(state, {
          ...state.facts,
          decision: "mark-failed",
          code: toWire(err).code,
          message: scrubbed(state, toWire(err).message),
        });
      } finally {
        await closeQuietly(state.session);
      }
    },
  };
}

async function execute(opts: HookRunOptions, state: RunState, deadlineFromConfig: boolean): Promise<Decision> {
  // Where the time goes, per phase (ms since the bound started): logged with every run.
  const phases: Record<string, number> = {};
  state.facts.phases = phases;
  const mark = (name: string) => (phases[name] = Math.round(performance.now() - (opts.startedAt ?? 0)));
  mark("start");
  const text = await opts.readPayload();
  mark("read");

  // The config comes before the payload is judged, so that even a bad payload is logged where it belongs.
  let found;
  try {
    found = await resolveAdapterInstance({ config: opts.config, cwd: opts.cwd, env: opts.env, instance: opts.adapter });
  } catch (err) {
    const wire = toWire(err);
    state.logFile =
      typeof wire.data.configDir === "string" ? hookLogPath(stateDirFor(wire.data.configDir, opts.env)) : homeLog(opts);
    throw new FailOpen(wire.code === "PB_ERR_ADAPTER_UNKNOWN" ? "unknown-adapter" : "config", wire.message, wire.code);
  }
  state.logFile = hookLogPath(stateDirFor(found.config.dir, opts.env));
  mark("config");

  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new FailOpen(
      "bad-payload",
      text.trim() === "" ? "stdin held no payload" : "stdin is not JSON",
      "PB_ERR_HOOK_PAYLOAD_INVALID",
    );
  }
  // The event word of the command line is not payload text: an event the adapter does not know is logged by its name.
  collectStrings(payload, (s) => {
    if (s !== opts.event) state.scrubber.add(s);
  });
  if (deadlineFromConfig) state.deadline = (opts.startedAt ?? 0) + found.standard.hook_timeout_ms;

  const session = await openAdapter({
    config: found.config.file ?? undefined,
    cwd: opts.cwd,
    env: opts.env,
    instance: found.id,
    logDestination: logStream(state),
    logLevel: "warn",
    startTimeoutMs: remaining(state),
  }).catch((err: unknown) => {
    throw new FailOpen("load", toWire(err).message, toWire(err).code);
  });
  state.session = session;
  mark("load");
  if (state.timedOut) throw new FailOpen("timeout", "timed out while loading");
  const call = <T>(method: string, args: unknown[]) => session.call<T>(method, args, remaining(state));

  let event: NormalizedEvent;
  try {
    event = deepFreeze(
      NormalizedEventSchema.parse(await call("normalizeHook", [payload, { event: opts.event }])),
    ) as NormalizedEvent;
  } catch (err) {
    throw new FailOpen("bad-payload", toWire(err).message, toWire(err).code);
  }
  // From here on the whitelisted values may appear in messages; everything else the payload held may not.
  state.scrubber = scrubberExcept(payload, [
    opts.event,
    event.sessionId,
    event.cwd,
    event.model,
    event.parentSessionId,
    event.agentId,
    event.tool,
    ...event.targets,
  ]);
  Object.assign(state.facts, { kind: event.kind, tool: event.tool, targets: event.targets.length });
  mark("normalize");

  const client = await detectClient(session);
  const localCert = localCertificationDir(session.stateDir, session.name);
  const cert = loadCertification(session.plugin.dir, localCert);
  const caps = effectiveCapabilities(
    { manifest: session.manifest, certification: cert.certification, callable: session.callable },
    { clientVersion: client.detect.version, platform: currentPlatform() },
  );
  Object.assign(state.facts, {
    client: `${session.manifest.client.certificationName}@${client.detect.version ?? "unknown"}`,
    effective: enabledKeys(caps.effective),
  });
  let inbox: { path: string; recipient: string } | null = null;
  try {
    inbox = session.standard.inbox
      ? { path: inboxPath(session), recipient: session.standard.recipient ?? session.name }
      : null;
  } catch {
    inbox = undefined as never; // an inbox that does not resolve: the full path reports it every time, so no cache
  }
  // An instance isolated in its own process keeps its adapter code there: no in-process fast path for it.
  const isolated = found.config.instances.find((i) => i.id === session.id)?.isolation !== "thread";
  if (session.manifest.fastHook && client.probe.path && !state.timedOut && inbox !== undefined && !isolated) {
    // Next time, PreToolUse can be answered from the compiled cache (src/cli/hook-fast.ts).
    await writeHookCache({
      stateDir: session.stateDir,
      instance: session.name,
      source: path.join(session.plugin.dir, session.manifest.fastHook),
      keyFiles: [
        found.config.file ?? "",
        path.join(session.plugin.dir, "plugin.json"),
        path.join(session.plugin.dir, CERTIFICATION_FILE),
        path.join(localCert, CERTIFICATION_FILE),
        client.probe.path,
        ...(cert.certification?.evidence ?? []).flatMap((e) => [
          path.join(session.plugin.dir, e.fixture),
          path.join(localCert, e.fixture),
        ]),
      ].filter(Boolean),
      env: opts.env,
      timeoutMs: session.standard.hook_timeout_ms,
      protect: session.standard.protect.map((p) => path.resolve(found.config.dir, p)),
      effective: enabledKeys(caps.effective),
      client: String(state.facts.client),
      inbox,
      slim: fileURLToPath(new URL("../adapter-sdk/slim.js", import.meta.url)),
    });
  }

  mark("capabilities");
  const decision = await decide(session, event, caps.effective, call);
  mark("decide");
  if (state.timedOut) {
    decision.deliver?.store.close(); // too late: the client already carried on, so nothing is offered or marked
    throw new FailOpen("timeout", "timed out while deciding");
  }
  const outcome = HookOutcomeSchema.parse(decision.outcome);
  return { ...decision, outcome };
}

/**
 * This run's hooks.log, found from where connectors.json is (no parsing), so a bound that fires
 * while the config is still loading — a slow disk, a busy machine — still records why it failed open.
 */
function locateLog(opts: HookRunOptions): string {
  try {
    return hookLogPath(
      stateDirFor(
        path.dirname(resolveConfigPath({ config: opts.config, cwd: opts.cwd, env: opts.env }).file),
        opts.env,
      ),
    );
  } catch {
    return homeLog(opts);
  }
}

/** No connectors.json at all: the line goes to ~/.patchbay/hooks.log (or PATCHBAY_HOME), never into the client's project. */
function homeLog(opts: HookRunOptions): string {
  return hookLogPath(
    opts.env.PATCHBAY_HOME
      ? path.resolve(opts.cwd ?? process.cwd(), opts.env.PATCHBAY_HOME)
      : path.join(homeDir(opts.env), ".patchbay"),
  );
}

function remaining(state: RunState): number {
  return Math.max(1, Math.floor(state.deadline - performance.now()));
}

function failOpen(state: RunState, err: FailOpen, ms: number): HookRunResult {
  const message = scrubbed(state, err.message);
  log(state, { ...state.facts, decision: "fail-open", reason: err.reason, code: err.code, message, ms });
  return {
    outcome: ALLOW,
    decision: "fail-open",
    reason: err.reason,
    message,
    logFile: state.logFile,
    finish: async () => undefined,
  };
}

function scrubbed(state: RunState, text: string): string {
  const clean = state.scrubber.scrub(text);
  return clean.length > 400 ? clean.slice(0, 400) + "…" : clean;
}

function log(state: RunState, entry: Record<string, unknown>): void {
  if (state.logFile) appendHookLog(state.logFile, entry);
}

/** Worker log lines (an adapter's ctx.log, the host's warnings) go to hooks.log, payload text scrubbed. */
function logStream(state: RunState): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      if (state.logFile) appendHookLog(state.logFile, { worker: state.scrubber.scrub(String(chunk).trim()) });
      done();
    },
  });
}

function collectStrings(value: unknown, add: (s: string) => void, depth = 0): void {
  if (depth > 64) return;
  if (typeof value === "string") add(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, add, depth + 1);
  else if (value && typeof value === "object") for (const v of Object.values(value)) collectStrings(v, add, depth + 1);
}

function scrubberExcept(payload: unknown, keep: (string | null)[]): Scrubber {
  const allowed = new Set(keep.filter((k): k is string => typeof k === "string"));
  const scrubber = new Scrubber();
  collectStrings(payload, (s) => {
    if (!allowed.has(s)) scrubber.add(s);
  });
  return scrubber;
}

async function closeQuietly(session: AdapterSession | null): Promise<void> {
  if (!session) return;
  await Promise.race([session.close().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())]);
}
