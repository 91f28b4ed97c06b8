/**
 * The work a hook run bounds: read the payload, find the adapter's instance, start its worker,
 * normalize, work out the effective capabilities (and refresh the fast path's cache), decide.
 * Everything that goes wrong is thrown as a FailOpen for the runner (hook-runner.ts) to log.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { toWire } from "../errors.js";
import { HookOutcomeSchema, NormalizedEventSchema, type NormalizedEvent } from "../adapter-sdk/contract.js";
import { deepFreeze } from "../adapter-sdk/event.js";
import {
  CERTIFICATION_FILE,
  currentPlatform,
  effectiveCapabilities,
  enabledKeys,
  loadCertification,
  localCertificationDir,
} from "./certification.js";
import { writeHookCache } from "./hook-cache.js";
import { decide, inboxPath, type Decision } from "./hook-decide.js";
import type { HookRunOptions } from "./hook-run-state.js";
import {
  collectStrings,
  FailOpen,
  homeLog,
  logStream,
  remaining,
  scrubberExcept,
  type RunState,
} from "./hook-run-state.js";
import { detectClient, openAdapter, resolveAdapterInstance } from "./session.js";
import { hookLogPath, stateDirFor } from "./state.js";

export async function execute(opts: HookRunOptions, state: RunState, deadlineFromConfig: boolean): Promise<Decision> {
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
