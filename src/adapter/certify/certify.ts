/**
 * `patchbay adapter certify <adapter> --client <bin>`: runs the real client offline (a stub of its
 * model API, driven by the adapter's own certify driver: drive.ts), captures every hook payload,
 * runs the adapter's normalize and the host's decide on each, checks what the client did with the
 * adapter's answers (a deny really blocked the write; injected text really reached the next
 * request), and writes evidence entries that name each capture by sha256 with the client version,
 * platform and the events behind each capability. Evidence goes into the plugin folder for an
 * adopter's own plugin, and into the local state folder (`.patchbay/certification/<adapter>/`) for
 * a bundled one, so an operator certifies a newer client without editing the installed package.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pbError } from "../../errors.js";
import { bundledPluginsDir, packageRoot } from "../../paths.js";
import { isInside, shellQuote } from "../../adapter-sdk/helpers.js";
import { currentPlatform, localCertificationDir } from "../certification.js";
import { findOnPath } from "../probe.js";
import { openAdapter, resolveAdapterInstance } from "../session.js";
import type { Env } from "../state.js";
import { certifyWorld, drive, loadDriver } from "./drive.js";
import { collectCaptures, prepareAnswers } from "./captures.js";
import { evidenceFor, writeEvidence, type CertifyReport } from "./record.js";

export type { CertifyReport };

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
    const answers = await prepareAnswers(session, driver, project, protectedDir);
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

    const captures = await collectCaptures(
      session,
      declared,
      rawDir,
      protectedDir,
      answers,
      run.requests.map((r) => r.text),
    );
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
