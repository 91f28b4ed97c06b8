/**
 * A plugin folder's test fixture, `test.config.json`: the JSON part of its conformance kit's
 * options, read by both its own vitest test and `patchbay plugin test`, so the two always run the
 * kit with the same configs.
 *
 * For the five connector kinds: "config" must boot healthy; "invalidConfig" must pass the
 * plugin's schema but point at a broken substrate, so health_check answers false (null, with
 * "invalidConfigReason", for a plugin with no substrate to break). For adapters: "config", and
 * what the sandbox's fake client prints for its version ("clientVersionOutput").
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { pbError } from "../errors.js";

export const FIXTURE_FILE = "test.config.json";

/** The keys test.config.json may hold: exactly the kit options that are plain JSON. */
const KIT_KEYS = [
  "config",
  "invalidConfig",
  "invalidConfigReason",
  "timeoutMs",
  "healthTimeoutMs",
  "mcp",
  "agent",
  "localModel",
];
const ADAPTER_KEYS = ["config", "clientVersionOutput", "fixtures"];

export interface TestFixture {
  file: string;
  config?: Record<string, unknown>;
  /** The rest of the kit's options, checked for shape here and passed on as they are. */
  options: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The fixture of the `kind` plugin in `pluginDir`, or null when it has none. */
export function readTestFixture(pluginDir: string, kind: string): TestFixture | null {
  const file = path.join(pluginDir, FIXTURE_FILE);
  if (!existsSync(file)) return null;
  const fail = (message: string): never => {
    throw pbError("PB_ERR_PLUGIN_TEST_FIXTURE", `${file}: ${message}`, { file });
  };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    return fail(`not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(raw)) return fail("must be a JSON object");
  const keys = kind === "adapter" ? ADAPTER_KEYS : KIT_KEYS;
  const unknown = Object.keys(raw).filter((k) => k !== "$schema" && !keys.includes(k));
  if (unknown.length > 0)
    fail(
      `unknown key${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `"${k}"`).join(", ")} (a ${kind} fixture may hold ${keys.join(", ")})`,
    );
  if (raw.config !== undefined && !isObject(raw.config))
    fail('"config" must be an object: a config the plugin accepts, with a healthy substrate');
  if (kind === "adapter") checkAdapter(raw, fail);
  else checkKit(raw, fail);
  const { $schema: _schema, config, ...options } = raw;
  return { file, ...(config === undefined ? {} : { config: config as Record<string, unknown> }), options };
}

function checkKit(raw: Record<string, unknown>, fail: (message: string) => never): void {
  if (!("invalidConfig" in raw))
    fail(
      '"invalidConfig" is missing: a config the schema accepts whose substrate is broken, or null with "invalidConfigReason"',
    );
  if (raw.invalidConfig !== null && !isObject(raw.invalidConfig)) fail('"invalidConfig" must be an object or null');
  if (raw.invalidConfig === null && typeof raw.invalidConfigReason !== "string")
    fail('"invalidConfig" is null, so "invalidConfigReason" must say why the plugin has no substrate to break');
  for (const key of ["timeoutMs", "healthTimeoutMs"]) {
    if (raw[key] !== undefined && !(Number.isInteger(raw[key]) && (raw[key] as number) > 0))
      fail(`"${key}" must be a positive integer`);
  }
  for (const key of ["mcp", "agent", "localModel"]) {
    if (raw[key] !== undefined && !isObject(raw[key])) fail(`"${key}" must be an object`);
  }
}

function checkAdapter(raw: Record<string, unknown>, fail: (message: string) => never): void {
  if (raw.clientVersionOutput !== undefined && typeof raw.clientVersionOutput !== "string")
    fail('"clientVersionOutput" must be a string');
  if (raw.fixtures !== undefined && !Array.isArray(raw.fixtures)) fail('"fixtures" must be an array');
}
