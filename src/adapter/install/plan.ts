/**
 * The full install plan of one adapter instance: Patchbay's own hook shim (a `tree` in the state
 * folder, so every adapter gets an absolute, existing, correctly quoted hook command) plus the
 * adapter's planInstall() artifacts. Validated and sorted here, and the same object is what a dry
 * run prints and what apply writes, so the plan's paths equal the install's by construction.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { pbError } from "../../errors.js";
import { InstallPlanSchema, type AdapterEnv, type Artifact } from "../../adapter-sdk/contract.js";
import { isInside, shellQuote } from "../../adapter-sdk/helpers.js";
import { packageRoot } from "../../paths.js";
import { shimDir } from "../state.js";

export interface ShimFacts {
  instance: string;
  /** Absolute connectors.json the hook must load. */
  configFile: string;
  stateDir: string;
}

/**
 * The runner a shim executes; install refuses when it is not there (a hook command that does not
 * exist fails silently).
 */
function runnerPaths(): { node: string; bin: string; main: string } {
  const root = packageRoot();
  return {
    node: process.execPath,
    bin: path.join(root, "bin", "patchbay.mjs"),
    main: path.join(root, "dist", "cli-bundle", "main.js"),
  };
}

export function assertRunner(): void {
  const r = runnerPaths();
  const missing = [r.node, r.bin, r.main].filter((p) => !existsSync(p));
  if (missing.length > 0) {
    throw pbError(
      "PB_ERR_INSTALL_RUNNER_MISSING",
      `refusing to install: the hook runner does not exist (${missing.join(", ")}).`,
      { missing },
    );
  }
}

function shimArtifact(facts: ShimFacts): Artifact {
  const r = runnerPaths();
  const q = shellQuote;
  const content = [
    "#!/bin/sh",
    `# Patchbay hook shim for adapter instance "${facts.instance}".`,
    "# Written by `patchbay adapter install`, removed by `patchbay adapter uninstall`; edits keep it from being removed.",
    `PATCHBAY_HOME=${q(facts.stateDir)} exec ${q(r.node)} ${q(r.bin)} hook ${q(facts.instance)} --config ${q(facts.configFile)} "$@"`,
    "",
  ].join("\n");
  return {
    kind: "tree",
    path: shimDir(facts.stateDir, facts.instance),
    files: [{ path: "hook", content, mode: 0o755 }],
  };
}

const ORDER: Record<Artifact["kind"], number> = { tree: 0, file: 1, merge: 2 };

/**
 * Validates the adapter's plan and composes the full one: trees and files before merges (a client
 * config never points at a hook that is not written yet), then by path. Throws
 * PB_ERR_INSTALL_PLAN_INVALID naming the artifact.
 */
export function composePlan(env: AdapterEnv, adapterPlan: unknown, facts: ShimFacts): Artifact[] {
  const parsed = InstallPlanSchema.safeParse(adapterPlan);
  if (!parsed.success) {
    throw invalid(
      env,
      `planInstall() returned an invalid plan: ${parsed.error.issues
        .slice(0, 3)
        .map((i) => `/${i.path.join("/")}: ${i.message}`)
        .join("; ")}`,
    );
  }
  const all = [shimArtifact(facts), ...parsed.data.artifacts];
  const roots = [env.home, env.projectDir, env.stateDir];
  for (const a of all) {
    if (path.normalize(a.path) !== a.path || a.path.endsWith("/"))
      throw invalid(env, `${a.path} is not a normalized absolute path`);
    if (!roots.some((r) => isInside(a.path, r) && a.path !== r)) {
      throw invalid(
        env,
        `${a.path} is outside the home (${env.home}), project (${env.projectDir}) and state (${env.stateDir}) folders`,
      );
    }
    if (a.kind === "tree" && new Set(a.files.map((f) => f.path)).size !== a.files.length)
      throw invalid(env, `tree ${a.path} lists a file twice`);
  }
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      if (isInside(all[i].path, all[j].path) || isInside(all[j].path, all[i].path)) {
        throw invalid(
          env,
          `artifacts ${all[i].path} and ${all[j].path} overlap (a tree is owned whole; nothing may sit inside it)`,
        );
      }
    }
  }
  return all.sort((a, b) => ORDER[a.kind] - ORDER[b.kind] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function invalid(env: AdapterEnv, message: string) {
  return pbError("PB_ERR_INSTALL_PLAN_INVALID", `adapters/${env.instance}: ${message}.`, {
    instance: `adapters/${env.instance}`,
  });
}
