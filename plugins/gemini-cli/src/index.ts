/**
 * gemini-cli: the Gemini CLI adapter. Protocol facts live in hooks.ts; this file wires them to
 * the adapter contract and plans the install: Patchbay's hook commands appended to the `hooks`
 * arrays of one Gemini settings file (a `merge`: the file is the user's and is never deleted).
 *
 * config.scope picks the file: "project" (default) .gemini/settings.json next to connectors.json,
 * "user" ~/.gemini/settings.json (every project). Gemini reads a project's settings only in a
 * folder the user trusted; doctor says when it is not.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "patchbay/plugin";
import { defineAdapter, JSON_HOOKS_CAPABILITIES, isInside, jsonHooksAdapter } from "patchbay/adapter";
import type { AdapterEnv, WiredHook } from "patchbay/adapter";
import { CLIENT, protocol, WRITE_TOOLS } from "./hooks.js";

/** Events install wires; BeforeTool's matcher (a regular expression over tool names) names the write tools. */
const WIRED: readonly WiredHook[] = [
  { event: "SessionStart" },
  { event: "SessionEnd" },
  { event: "BeforeAgent" },
  { event: "BeforeTool", matcher: Object.keys(WRITE_TOOLS).join("|") },
];

/**
 * Gemini's hook timeout, in milliseconds: Patchbay's own bound (hook_timeout_ms, after which the
 * hook fails open by itself) plus a margin, so Gemini never kills a hook that is still deciding.
 */
const clientTimeoutMs = (hookTimeoutMs: number) => hookTimeoutMs + 5_000;

const config = z.strictObject({
  scope: z.enum(["project", "user"]).default("project").meta({
    description:
      'Which settings file install edits: "project" .gemini/settings.json next to connectors.json, "user" ~/.gemini/settings.json.',
  }),
});

type Scope = z.output<typeof config>["scope"];

function settingsFile(env: AdapterEnv, scope: Scope): string {
  return path.join(scope === "user" ? env.home : env.projectDir, ".gemini", "settings.json");
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Gemini's ~/.gemini/trustedFolders.json: path → TRUST_FOLDER | TRUST_PARENT | DO_NOT_TRUST. */
function trusted(env: AdapterEnv): boolean {
  const folders = readJson(path.join(env.home, ".gemini", "trustedFolders.json")) ?? {};
  return Object.entries(folders).some(
    ([dir, level]) =>
      (level === "TRUST_FOLDER" && isInside(env.projectDir, dir)) ||
      (level === "TRUST_PARENT" && isInside(env.projectDir, path.dirname(dir))),
  );
}

export default defineAdapter({
  id: "gemini-cli",
  displayName: CLIENT,
  // packageName: its --version writes ~/.gemini/projects.json temp files; package.json does not.
  client: {
    command: "gemini",
    versionArgs: ["--version"],
    certificationName: "gemini-cli",
    packageName: "@google/gemini-cli",
  },
  fastHook: "src/hooks.ts",
  certifyDriver: "src/certify.ts",
  capabilities: JSON_HOOKS_CAPABILITIES,
  config,
  // Nothing of its own beyond the shared methods: the settings file, and doctor's folder-trust check.
  create: (cfg) =>
    jsonHooksAdapter({
      file: (env) => settingsFile(env, cfg.scope),
      wired: WIRED,
      timeout: clientTimeoutMs(cfg.hook_timeout_ms),
      protocol,
      protect: cfg.protect,
      diagnose: (env, file) =>
        cfg.scope === "project" && !trusted(env)
          ? [
              {
                level: "warn",
                code: "folder-untrusted",
                message: `${env.projectDir} is not a trusted folder for Gemini CLI, which then ignores ${file} (and its hooks); trust it in \`gemini\` (/permissions), or set GEMINI_CLI_TRUST_WORKSPACE=true for automation.`,
              },
            ]
          : [],
    }),
});
