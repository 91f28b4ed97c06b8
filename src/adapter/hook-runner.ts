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
 *
 * This file is the bound and what a run answers; the work it bounds is hook-execute.ts, the run's
 * options, state, log and scrubbing hook-run-state.ts (both sides read them).
 */
import { toWire } from "../errors.js";
import type { HookOutcome } from "../adapter-sdk/contract.js";
import { Scrubber } from "../secrets.js";
import { ALLOW, type Decision } from "./hook-decide.js";
import { execute } from "./hook-execute.js";
import {
  closeQuietly,
  FailOpen,
  locateLog,
  log,
  scrubbed,
  type HookRunOptions,
  type RunState,
} from "./hook-run-state.js";
import type { Env } from "./state.js";

export type { HookRunOptions };

const DEFAULT_HOOK_TIMEOUT_MS = 5_000;

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
    // A call or start deadline (set to the bound) can fire a moment before the bound's own timer:
    // it is the same timeout.
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
