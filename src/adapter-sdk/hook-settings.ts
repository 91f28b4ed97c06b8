/**
 * Hooks wired through a JSON settings file, the shape Claude Code, Codex and Gemini CLI all read:
 * `{"hooks": {"<Event>": [{"matcher"?: "...", "hooks": [{"type": "command", "command", "timeout"}]}]}}`.
 * Install appends one group per wired event (a `merge`: the file stays the user's, and uninstall
 * takes back exactly what was appended); doctor reads the same file back to say which events are
 * not wired. One writer and one reader of the shape, so the two cannot drift apart per adapter.
 */
import { readFileSync } from "node:fs";
import type { AdapterEnv, Artifact, Diagnostic } from "./contract.js";

/** An event install wires, with the matcher the client filters tools by (none: every tool). */
export interface WiredHook {
  event: string;
  matcher?: string;
}

/**
 * The merge artifact appending Patchbay's hook command for each event to `hooks.<event>` of
 * `file`. `timeout` is in the client's own unit (seconds for some clients, ms for others).
 */
export function hookSettingsMerge(
  file: string,
  env: AdapterEnv,
  wired: readonly WiredHook[],
  timeout: number,
): Artifact {
  return {
    kind: "merge",
    path: file,
    format: "json",
    entries: wired.map((w) => {
      const hooks = [{ type: "command", command: `${env.hookCommand} ${w.event}`, timeout }];
      return { at: ["hooks", w.event], append: w.matcher ? { matcher: w.matcher, hooks } : { hooks } };
    }),
  };
}

/** The settings file's `hooks` object; an absent, unreadable or malformed file has none. */
export function readSettingsHooks(file: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { hooks?: Record<string, unknown> };
    return parsed.hooks && typeof parsed.hooks === "object" ? parsed.hooks : {};
  } catch {
    return {};
  }
}

/** The wired events whose entry in `hooks` does not run Patchbay's command for that event. */
export function unwiredHooks(
  hooks: Record<string, unknown>,
  env: AdapterEnv,
  wired: readonly WiredHook[],
): WiredHook[] {
  return wired.filter(
    (w) => !JSON.stringify(hooks[w.event] ?? []).includes(JSON.stringify(`${env.hookCommand} ${w.event}`).slice(1, -1)),
  );
}

/** Doctor's warning for events the settings file does not run Patchbay for, or null when all are wired. */
export function notWiredDiagnostic(file: string, env: AdapterEnv, events: readonly string[]): Diagnostic | null {
  if (events.length === 0) return null;
  return {
    level: "warn",
    code: "not-wired",
    message: `${file} does not run Patchbay for ${events.join(", ")}; run \`patchbay adapter install ${env.instance}\`.`,
  };
}
