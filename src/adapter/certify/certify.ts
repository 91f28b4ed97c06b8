/**
 * `patchbay adapter certify <adapter> --client <bin>`: runs the real client offline (a stub of its
 * model API, driven by the adapter's own certify driver: drive.ts), captures every hook payload, runs the adapter's normalize and the host's
 * decide on each, checks what the client did with the adapter's answers (a deny really blocked
 * the write; injected text really reached the next request), and writes evidence entries that
 * name each capture by sha256 with the client version, platform and the events behind each
 * capability. Evidence goes into the plugin folder for an adopter's own plugin, and into the local
 * state folder (`.patchbay/certification/<adapter>/`) for a bundled one, so an operator certifies
 * a newer client without editing the installed package.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pbError } from "../../errors.js";
import { bundledPluginsDir, packageRoot } from "../../paths.js";
import {
  CertificationSchema,
  type Certification,
  type Evidence,
  type NormalizedEvent,
} from "../../adapter-sdk/contract.js";
import { isInside, shellQuote } from "../../adapter-sdk/helpers.js";
import { CAPTURES_DIR, currentPlatform, localCertificationDir } from "../certification.js";
import { decide } from "../hook-decide.js";
import { findOnPath } from "../probe.js";
import { openAdapter, resolveAdapterInstance } from "../session.js";
import type { Env } from "../state.js";
import { sha256 } from "../install/hash.js";
import { certifyWorld, drive, loadDriver } from "./drive.js";
import { checkCapability, type Capture } from "./evidence.js";

export interface CertifyOptions {
  adapter: string;
  client: string;
  config?: string;
  cwd?: string;
  env: Env;
  dryRun?: boolean;
  /** Where evidence goes; default: "local" for a bundled plugin, "plugin" for an adopter's own. */
  into?: "plugin" | "local";
}

export interface CertifyReport {
  adapter: string;
  client: string;
  version: string;
  platform: string;
  /** The folder certification.json is (or would be) written in. */
  target: string;
  entries: Evidence[];
  captures: { file: string; event: string; kind: string | null; sha256: string }[];
  written: boolean;
}

const MARK = "PATCHBAY-CERTIFY-MARK";

function clientVersion(bin: string): string {
  let out: string;
  try {
    out = execFileSync(bin, ["--version"], { encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    throw pbError(
      "PB_ERR_ADAPTER_CERTIFY_FAILED",
      `Could not run ${bin} --version (${(err as Error).message.split("\n")[0]}).`,
      { client: bin },
    );
  }
  const m = /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/.exec(out);
  if (!m) throw pbError("PB_ERR_ADAPTER_CERTIFY_FAILED", `${bin} --version printed no x.y.z version.`, { client: bin });
  return m[1];
}

export async function certifyAdapter(opts: CertifyOptions): Promise<CertifyReport> {
  const bin = opts.client.includes("/")
    ? path.resolve(opts.cwd ?? process.cwd(), opts.client)
    : findOnPath(opts.client, opts.env);
  if (!bin || !existsSync(bin))
    throw pbError("PB_ERR_ADAPTER_CERTIFY_FAILED", `The client ${opts.client} was not found.`, { client: opts.client });
  const version = clientVersion(bin);
  const platform = currentPlatform();
  const found = await resolveAdapterInstance({
    config: opts.config,
    cwd: opts.cwd,
    env: opts.env,
    instance: opts.adapter,
  });
  const pluginDir = found.plugin.dir;
  const root = mkdtempSync(path.join(os.tmpdir(), "patchbay-certify-"));
  const rawDir = path.join(root, "raw");
  mkdirSync(rawDir);
  const project = path.join(root, "project");
  const protectedDir = path.join(project, "protected");
  mkdirSync(protectedDir, { recursive: true });
  // A private config: the same plugin, protecting the sandbox's folder, no inbox (context is checked with markers).
  const own = Object.fromEntries(
    Object.entries(found.rawConfig).filter(([k]) => !["protect", "inbox", "recipient"].includes(k)),
  );
  const configFile = path.join(root, "connectors.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      plugins: [path.dirname(pluginDir)],
      adapters: { [found.name]: { plugin: found.plugin.manifest.name, config: { ...own, protect: [protectedDir] } } },
    }),
  );
  const session = await openAdapter({
    config: configFile,
    cwd: root,
    env: { ...opts.env, PATCHBAY_HOME: path.join(root, "state") },
    instance: found.name,
  });
  try {
    const certName = session.manifest.client.certificationName;
    if (!session.manifest.certifyDriver) {
      throw pbError(
        "PB_ERR_ADAPTER_CERTIFY_FAILED",
        `${found.id} declares no certifyDriver, so \`adapter certify\` cannot drive ${certName}; add one (docs/adapters.md, "Certify") or write evidence by hand.`,
        { adapter: found.id },
      );
    }
    const driver = await loadDriver(pluginDir, session.manifest.certifyDriver, found.id);
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
    const answers: { deny?: unknown; inject: Record<string, unknown> } = { inject: {} };
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
    writeFileSync(path.join(rawDir, "answers.json"), JSON.stringify(answers));
    // The compiled hook script (also when this module runs from src/ under vitest).
    const hook = path.join(packageRoot(), "dist", "adapter", "certify", "capture-hook.js");
    const world = certifyWorld(root, bin, `${shellQuote(process.execPath)} ${shellQuote(hook)} ${shellQuote(rawDir)}`);
    const run = await drive(driver, world);
    if (run.exitCode !== 0)
      throw pbError(
        "PB_ERR_ADAPTER_CERTIFY_FAILED",
        `${bin} exited with ${run.exitCode} during the scripted turn (${run.stderr.trim().split("\n").slice(-2).join(" ")}).`,
        { client: bin },
      );

    // Captures, in firing order, each normalized by the adapter and decided by the host.
    const captures: Capture[] = [];
    const bodies = run.requests.map((r) => r.text);
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
    const report = evidenceFor(captures, { certName, version, platform, declared, root });
    report.adapter = found.id;
    report.client = bin;
    const into = opts.into ?? (isInside(pluginDir, bundledPluginsDir()) ? "local" : "plugin");
    const target = into === "plugin" ? pluginDir : localCertificationDir(stateDirOf(found), found.name);
    report.target = target;
    if (!opts.dryRun) writeEvidence(target, session.manifest.id, report, version, platform);
    report.written = !opts.dryRun;
    return report;
  } finally {
    await session.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function stateDirOf(found: { config: { dir: string }; env: Env }): string {
  return path.resolve(found.config.dir, found.env.PATCHBAY_HOME || ".patchbay");
}

/** Capture files (sandbox paths replaced by a placeholder) and one evidence entry per declared capability. */
function evidenceFor(
  captures: Capture[],
  facts: { certName: string; version: string; platform: string; declared: unknown; root: string },
): CertifyReport {
  const dir = `${CAPTURES_DIR}/${facts.version}-${facts.platform}`;
  const files = captures.map((c) => {
    const body =
      JSON.stringify(
        {
          client: facts.certName,
          version: facts.version,
          platform: facts.platform,
          event: c.event,
          tool: c.tool,
          kind: c.kind,
          reaction: c.reaction,
          normalized: c.normalized,
          payload: c.payload,
        },
        null,
        2,
      )
        .split(facts.root)
        .join("/sandbox")
        .split(facts.root.replace(/[^A-Za-z0-9]/g, "-"))
        .join("-sandbox") + "\n";
    return { capture: c, file: `${dir}/${c.name}`, body, sha256: sha256(body) };
  });
  const observedAt = new Date().toISOString().slice(0, 10);
  const entries: Evidence[] = [];
  const shape = facts.declared as Record<string, Record<string, boolean>>;
  for (const [group, caps] of Object.entries(shape)) {
    for (const [name, on] of Object.entries(caps)) {
      if (!on) continue;
      const capability = `${group}.${name}`;
      const verdict = checkCapability(
        capability,
        files.map((f) => f.capture),
      );
      // A failed entry with no related capture points at the run's first one: failures stay on record (they can never enable).
      const backing =
        (verdict.capture ? files.find((f) => f.capture === verdict.capture) : null) ??
        (verdict.pass ? null : (files[0] ?? null));
      if (!backing) continue;
      entries.push({
        client: facts.certName,
        version: facts.version,
        platform: facts.platform,
        observedAt,
        capability,
        fixture: backing.file,
        sha256: backing.sha256,
        events: [backing.capture.event],
        result: verdict.pass ? "pass" : "fail",
        notes: verdict.notes,
      } as Evidence);
    }
  }
  return {
    adapter: "",
    client: "",
    version: facts.version,
    platform: facts.platform,
    target: "",
    entries,
    captures: files.map((f) => ({
      file: f.file,
      event: f.capture.event,
      kind: f.capture.kind,
      sha256: f.sha256,
      body: f.body,
    })) as CertifyReport["captures"],
    written: false,
  };
}

/** Writes the capture files and replaces this client version/platform's entries in certification.json. */
function writeEvidence(
  target: string,
  adapterId: string,
  report: CertifyReport,
  version: string,
  platform: string,
): void {
  const capDir = path.join(target, CAPTURES_DIR, `${version}-${platform}`);
  rmSync(capDir, { recursive: true, force: true });
  mkdirSync(capDir, { recursive: true });
  for (const c of report.captures as (CertifyReport["captures"][number] & { body: string })[])
    writeFileSync(path.join(target, c.file), c.body);
  const file = path.join(target, "certification.json");
  let current: Certification = { schemaVersion: 1, adapter: adapterId, evidence: [] };
  if (existsSync(file)) {
    const parsed = CertificationSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (parsed.success) current = parsed.data;
  }
  const kept = current.evidence.filter((e) => !(e.version === version && e.platform === platform));
  writeFileSync(file, JSON.stringify({ ...current, evidence: [...kept, ...report.entries] }, null, 2) + "\n");
}
