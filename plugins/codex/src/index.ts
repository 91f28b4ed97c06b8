/**
 * codex: the Codex CLI adapter. Protocol facts live in hooks.ts; this file wires them to the
 * adapter contract and plans the install: Patchbay's hook commands appended to the `hooks` arrays
 * of `$CODEX_HOME/hooks.json` (a `merge`: the file is the user's and is never deleted).
 *
 * Why hooks.json and not `[[hooks.<Event>]]` tables in config.toml: Codex reads both, and the JSON
 * file can be edited and restored byte for byte without a TOML writer touching the user's
 * config.toml (comments, ordering, inline tables). Trust is Codex's: it runs a hook only once the
 * user trusted its content hash (`/hooks` in the TUI, or Codex's own app-server), and records that
 * in config.toml itself. Codex skips an untrusted hook silently, so install says so (the plan's
 * `inactive`), doctor says which are untrusted, and `install --trust-hooks` records the consent
 * through Codex's app-server (trust.ts), for Patchbay's hooks only.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "patchbay/plugin";
import { defineAdapter, JSON_HOOKS_CAPABILITIES, jsonHooksAdapter, readSettingsHooks } from "patchbay/adapter";
import type { AdapterEnv, WiredHook } from "patchbay/adapter";
import { CLIENT, protocol } from "./hooks.js";
import { trustHooks, untrustHooks, type AppServer } from "./trust.js";

/** Events install wires. PreToolUse has no matcher: every tool call is seen, apply_patch is read. */
const WIRED: readonly WiredHook[] = [
  { event: "SessionStart" },
  { event: "SessionEnd" },
  { event: "UserPromptSubmit" },
  { event: "PreToolUse" },
];
const WIRED_EVENTS = WIRED.map((w) => w.event);

/**
 * Codex's hook timeout, in seconds: Patchbay's own bound (hook_timeout_ms, after which the hook
 * fails open by itself) plus a margin, so Codex never kills a hook that is still deciding.
 */
const clientTimeoutS = (hookTimeoutMs: number) => Math.ceil(hookTimeoutMs / 1000) + 5;

const config = z.strictObject({
  codex_home: z
    .string()
    .refine((p) => path.isAbsolute(p), "must be an absolute path")
    .optional()
    .meta({ description: "Codex's home folder (its CODEX_HOME); default ~/.codex. install edits hooks.json in it." }),
});

function codexHome(env: AdapterEnv, cfg: { codex_home?: string }): string {
  return cfg.codex_home ?? path.join(env.home, ".codex");
}

const command = (env: AdapterEnv, event: string) => `${env.hookCommand} ${event}`;
/** Codex's hook key event segment: "PreToolUse" → "pre_tool_use". */
const snake = (event: string) => event.replace(/[A-Z]/g, (c, i: number) => (i ? "_" : "") + c.toLowerCase());

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

/**
 * Which wired events have no Patchbay hook in hooks.json, and which have one Codex holds no trust
 * record for: [hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash = "sha256:…" in config.toml.
 */
function wiringOf(env: AdapterEnv, home: string): { unwired: string[]; untrusted: string[] } {
  const file = path.join(home, "hooks.json");
  const hooks = readSettingsHooks(file);
  // A group per event, found by index: Codex's trust record names the group's position.
  const groupOf = (event: string) =>
    (Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : []).findIndex((g) =>
      JSON.stringify(g).includes(JSON.stringify(command(env, event)).slice(1, -1)),
    );
  const toml = readText(path.join(home, "config.toml")) ?? "";
  const unwired = WIRED_EVENTS.filter((e) => groupOf(e) < 0);
  const untrusted = WIRED_EVENTS.filter(
    (e) =>
      groupOf(e) >= 0 &&
      !new RegExp(
        `\\[hooks\\.state\\."${escapeRe(`${file}:${snake(e)}:${groupOf(e)}:0`)}"\\]\\s*\\ntrusted_hash\\s*=`,
      ).test(toml),
  );
  return { unwired, untrusted };
}

function appServer(env: AdapterEnv, home: string): AppServer {
  if (!env.client.path) throw new Error(`${CLIENT} was not found, so its app-server cannot record the trust`);
  return { bin: env.client.path, codexHome: home, home: env.home, cwd: env.projectDir };
}

export default defineAdapter({
  id: "codex",
  displayName: CLIENT,
  client: { command: "codex", versionArgs: ["--version"], certificationName: "codex" },
  fastHook: "src/hooks.ts",
  certifyDriver: "src/certify.ts",
  capabilities: JSON_HOOKS_CAPABILITIES,
  config,
  create(cfg) {
    return {
      ...jsonHooksAdapter({
        file: (env) => path.join(codexHome(env, cfg), "hooks.json"),
        wired: WIRED,
        timeout: clientTimeoutS(cfg.hook_timeout_ms),
        protocol,
        protect: cfg.protect,
        diagnose(env) {
          const { untrusted } = wiringOf(env, codexHome(env, cfg));
          if (untrusted.length === 0) return [];
          return [
            {
              level: "warn",
              code: "hooks-untrusted",
              message: `Codex has not trusted Patchbay's hooks for ${untrusted.join(", ")} and skips them silently; ${trustStep(env)}. Codex asks again whenever a hook's command changes.`,
            },
          ];
        },
        // Before the write: hooks not wired yet are not trusted yet either.
        plan: (env) =>
          Object.values(wiringOf(env, codexHome(env, cfg))).some((events) => events.length > 0)
            ? {
                inactive: {
                  reason: `Codex skips these hooks, silently, until you trust them (it records the trust in its config.toml, per hook content).`,
                  step: trustStep(env),
                },
              }
            : {},
      }),

      async trustHooks(env: AdapterEnv) {
        const home = codexHome(env, cfg);
        const commands = WIRED_EVENTS.map((e) => command(env, e));
        return trustHooks(appServer(env, home), path.join(home, "hooks.json"), commands);
      },
      untrustHooks: (env: AdapterEnv, keys: string[]) => untrustHooks(appServer(env, codexHome(env, cfg)), keys),
    };
  },
});

/** The exact step that makes Codex run the hooks: its own /hooks screen, or the same consent through install. */
function trustStep(env: AdapterEnv): string {
  return `trust them in Codex (start \`codex\`, open /hooks, trust Patchbay's hooks), or let Patchbay record that consent through Codex's app-server: \`patchbay adapter install ${env.instance} --trust-hooks\``;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
