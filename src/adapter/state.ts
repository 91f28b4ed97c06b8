/**
 * Where the adapter machinery keeps its own files: the state folder (PATCHBAY_HOME, else
 * `.patchbay` next to connectors.json, relative values resolved against that folder), the hook log,
 * the install record, the client-probe cache and the hook shims.
 */
import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { shellQuote } from "../adapter-sdk/helpers.js";

export type Env = Record<string, string | undefined>;

export function stateDirFor(configDir: string, env: Env): string {
  return path.resolve(configDir, env.PATCHBAY_HOME || ".patchbay");
}

export function homeDir(env: Env): string {
  return path.resolve(env.HOME || os.homedir());
}

export const hookLogPath = (stateDir: string) => path.join(stateDir, "hooks.log");
export const installRecordPath = (stateDir: string) => path.join(stateDir, "installs.json");
export const probeCachePath = (stateDir: string) => path.join(stateDir, "clients.json");
/** The folder Patchbay creates for an adapter instance's hook shim (a `tree` artifact). */
export const shimDir = (stateDir: string, instance: string) => path.join(stateDir, "adapters", instance);
export const shimPath = (stateDir: string, instance: string) => path.join(shimDir(stateDir, instance), "hook");
export const shimCommand = (stateDir: string, instance: string) => shellQuote(shimPath(stateDir, instance));

const MAX_LOG_BYTES = 1024 * 1024;

/**
 * Appends one JSON line. The caller has already reduced `entry` to facts (codes, kinds, counts);
 * `scrub` is a second line of defence that removes any payload text that slipped into a message.
 * Logging never throws: a hook must not fail because its log cannot be written.
 */
export function appendHookLog(
  file: string,
  entry: Record<string, unknown>,
  scrub: (text: string) => string = (t) => t,
): boolean {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    try {
      if (statSync(file).size > MAX_LOG_BYTES) renameSync(file, `${file}.1`);
    } catch {
      // no log yet
    }
    appendFileSync(file, scrub(JSON.stringify({ time: new Date().toISOString(), ...entry })) + "\n", { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}
