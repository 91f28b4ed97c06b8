/**
 * The adapter methods of a client wired through one JSON settings file of hooks (hook-settings.ts)
 * and speaking the JSON hook protocol (hook-protocol.ts): detect from the host's probe, doctor's
 * not-wired check plus the adapter's own, the install plan's merge, the peer-message projection,
 * the hook methods, and the protocol's sessions. An adapter spreads the result into what create()
 * returns and adds only what is its own (session logging, a trust check, notes), so a new client
 * needs no copied block.
 */
import type { AdapterMethods } from "./define.js";
import type { AdapterEnv, CapabilityDeclaration, Diagnostic, InstallPlan } from "./contract.js";
import { detectFromProbe } from "./helpers.js";
import {
  hookSettingsMerge,
  notWiredDiagnostic,
  readSettingsHooks,
  unwiredHooks,
  type WiredHook,
} from "./hook-settings.js";
import type { JsonHookProtocol } from "./hook-protocol.js";
import { projectContext } from "./render.js";

/**
 * Every capability the methods below back: what an adapter built on them may declare. Declaring is
 * a claim, not a grant: each stays ineffective until the client's certification proves it.
 */
export const JSON_HOOKS_CAPABILITIES: CapabilityDeclaration = Object.freeze({
  lifecycle: { sessionStart: true, sessionEnd: true },
  context: { startupInjection: true, beforeTurnInjection: true },
  guards: { beforeWrite: true },
  delivery: { nextTurn: true },
});

export interface JsonHooksAdapterSpec {
  /** The settings file install edits and doctor reads, for this environment. */
  file(env: AdapterEnv): string;
  /** The events install wires, each with the client's tool matcher if any. */
  wired: readonly WiredHook[];
  /** The client's own timeout for one hook, in its unit: above Patchbay's, so the client never kills a deciding one. */
  timeout: number;
  protocol: JsonHookProtocol;
  /** The instance's `protect` (standard config). */
  protect: readonly string[];
  /** Doctor's further read-only checks, after the not-wired one. */
  diagnose?(env: AdapterEnv, file: string): Diagnostic[];
  /** The plan's other fields (notes), next to the merge artifact. */
  plan?(env: AdapterEnv): Omit<InstallPlan, "artifacts">;
}

export type JsonHooksMethods = Required<
  Pick<
    AdapterMethods,
    | "detect"
    | "doctor"
    | "normalizeHook"
    | "renderContext"
    | "planInstall"
    | "denyOutcome"
    | "injectOutcome"
    | "guardWrite"
    | "startSession"
    | "endSession"
  >
>;

export function jsonHooksAdapter(spec: JsonHooksAdapterSpec): JsonHooksMethods {
  const { protocol } = spec;
  return {
    detect: (probe) => detectFromProbe(probe),
    doctor(env) {
      const file = spec.file(env);
      const unwired = unwiredHooks(readSettingsHooks(file), env, spec.wired).map((w) => w.event);
      const notWired = notWiredDiagnostic(file, env, unwired);
      return { ok: true, diagnostics: [...(notWired ? [notWired] : []), ...(spec.diagnose?.(env, file) ?? [])] };
    },
    normalizeHook: (payload, { event }) => protocol.normalizeHook(payload, event),
    renderContext: (input, opts) => projectContext(input, opts),
    planInstall: (env) => ({
      ...spec.plan?.(env),
      artifacts: [hookSettingsMerge(spec.file(env), env, spec.wired, spec.timeout)],
    }),
    denyOutcome: (reason) => protocol.denyOutcome(reason),
    injectOutcome: (text, event) => protocol.injectOutcome(text, event),
    guardWrite: (event) => protocol.guardWrite(event, spec.protect),
    startSession: (event) => protocol.startSession(event),
    endSession: (event) => protocol.endSession(event),
  };
}
