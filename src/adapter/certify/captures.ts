/**
 * The two halves of certify's turn that talk to the adapter: before it, the answers the capture
 * hook will give (the adapter's own deny through the host's decide, and an inject per context
 * event, each carrying a marker); after it, each captured payload normalized, decided, and
 * checked against what the client really did (the write blocked, the marker in a later request).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { CapabilityShape, NormalizedEvent } from "../../adapter-sdk/contract.js";
import type { CertifyDriver } from "../../adapter-sdk/certify-driver.js";
import { isInside } from "../../adapter-sdk/helpers.js";
import { decide } from "../hook-decide.js";
import type { AdapterSession } from "../session.js";
import type { Capture } from "./evidence.js";

const MARK = "PATCHBAY-CERTIFY-MARK";

/** The answers the capture hook gives, written to answers.json before the turn. */
export interface CaptureAnswers {
  deny?: unknown;
  inject: Record<string, unknown>;
}

export async function prepareAnswers(
  session: AdapterSession,
  driver: CertifyDriver,
  project: string,
  protectedDir: string,
): Promise<CaptureAnswers> {
  const declared = session.manifest.capabilities;
  const probeEvent = (kind: NormalizedEvent["kind"], extra: Partial<NormalizedEvent> = {}): NormalizedEvent =>
    ({
      kind,
      sessionId: "certify",
      cwd: project,
      model: null,
      parentSessionId: null,
      agentId: null,
      tool: null,
      targets: [],
      ...extra,
    }) as NormalizedEvent;
  // The answers the capture hook gives: the adapter's own deny (through the host's decide) and inject envelopes.
  const answers: CaptureAnswers = { inject: {} };
  const denyDecision = await decide(
    session,
    probeEvent("beforeTool", { tool: "write", targets: [path.join(protectedDir, "secret.txt")] }),
    declared,
    session.call,
  );
  if (denyDecision.decision === "deny")
    answers.deny = {
      protectedDir,
      events: driver.denyEvents,
      stdout: denyDecision.outcome.stdout,
      stderr: denyDecision.outcome.stderr,
      exitCode: denyDecision.outcome.exitCode,
    };
  for (const event of driver.events) {
    const kind = await session
      .call<NormalizedEvent>("normalizeHook", [
        { hook_event_name: event, session_id: "certify", cwd: project },
        { event },
      ])
      .then(
        (e) => e.kind,
        () => null,
      );
    if (kind === "sessionStart" || kind === "beforeTurn" || kind === "afterTool") {
      const outcome = await session
        .call<{ stdout: string; stderr: string; exitCode: number }>("injectOutcome", [
          `${MARK}-${event}`,
          probeEvent(kind),
        ])
        .catch(() => null);
      if (outcome)
        answers.inject[event] = { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode };
    }
  }
  return answers;
}

/** Captures, in firing order, each normalized by the adapter and decided by the host. */
export async function collectCaptures(
  session: AdapterSession,
  declared: CapabilityShape,
  rawDir: string,
  protectedDir: string,
  answers: CaptureAnswers,
  bodies: string[],
): Promise<Capture[]> {
  const captures: Capture[] = [];
  let n = 0;
  for (const file of readdirSync(rawDir)
    .filter((f) => f.endsWith(".raw.json"))
    .sort()) {
    const text = readFileSync(path.join(rawDir, file), "utf8");
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(text) as Record<string, unknown>;
    } catch {
      continue;
    }
    const event =
      typeof payload.hook_event_name === "string" ? payload.hook_event_name : file.replace(/^\d+-|\.raw\.json$/g, "");
    const normalized = await session.call<NormalizedEvent>("normalizeHook", [payload, { event }]).catch(() => null);
    const tool = typeof payload.tool_name === "string" ? payload.tool_name : null;
    const reaction: Record<string, unknown> = {};
    if (normalized?.kind === "beforeTool" && normalized.targets.some((t) => isInside(t, protectedDir))) {
      const d = await decide(session, normalized, declared, session.call);
      const verdict = await session
        .call<{ reason?: string }>("guardWrite", [normalized])
        .catch(() => ({ reason: undefined }));
      const reason = verdict.reason ? JSON.stringify(verdict.reason).slice(1, -1) : null;
      reaction.decision = d.decision;
      reaction.sameOutcome =
        d.outcome.stdout === (answers.deny as { stdout?: string } | undefined)?.stdout &&
        d.outcome.exitCode === (answers.deny as { exitCode?: number } | undefined)?.exitCode;
      // Blocked: the file never landed, and the model was told why (the deny reason is in a later request).
      reaction.fileWritten = existsSync(path.join(protectedDir, "secret.txt"));
      reaction.reasonReachedModel = reason !== null && bodies.some((b) => b.includes(reason));
      reaction.blocked =
        d.decision === "deny" &&
        reaction.sameOutcome === true &&
        reaction.fileWritten === false &&
        reaction.reasonReachedModel === true;
    }
    if (answers.inject[event]) reaction.injectedReachedModel = bodies.some((b) => b.includes(`${MARK}-${event}`));
    const name = `${String(++n).padStart(2, "0")}-${event}${tool ? `-${tool}` : ""}.json`;
    captures.push({
      name,
      event,
      tool,
      kind: normalized?.kind ?? null,
      agentId: normalized?.agentId ?? null,
      normalized,
      payload,
      reaction,
    });
  }
  return captures;
}
