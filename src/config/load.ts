/**
 * loadConfig: connectors.json → a validated, frozen ResolvedConfig, or one PatchbayError that
 * lists every problem of the first stage that fails.
 *
 * Where the file comes from (see source.ts): opts.config (a path relative to cwd, or an object)
 * > env.PATCHBAY_CONFIG > connectors.json in cwd or a parent, up to the folder holding `.git`.
 *
 * Stages, in order; the first with problems throws:
 *   1. parse            PB_ERR_CONFIG_PARSE       (line:column)
 *   2. forbidden keys   PB_ERR_CONFIG_INVALID     (__proto__, constructor, prototype, anywhere)
 *   3. ${VAR}           PB_ERR_CONFIG_INVALID for malformed references, then
 *                       PB_ERR_CONFIG_ENV_MISSING listing every unset variable
 *   4. schema           PB_ERR_CONFIG_INVALID     (every issue, unknown keys with "did you mean")
 *   5. aliases          PB_ERR_CONFIG_ALIAS       (cycles and dangling targets)
 *   6. grants           PB_ERR_CONFIG_INVALID     (grants naming no instance)
 * Env runs before the schema so a missing variable is reported as what it is, not as the odd
 * value the schema would see. `_` comment keys are stripped before stage 3: their text is
 * discarded anyway, so a `${VAR}` mentioned in a comment must not demand the variable.
 *
 * Every message is passed through a Scrubber holding the resolved ${VAR} values.
 */
import path from "node:path";
import { SECTIONS } from "../contract/kinds.js";
import { pbError, toWire, type PatchbayError, type WireError } from "../errors.js";
import { Scrubber } from "../secrets.js";
import { resolveAliases } from "./aliases.js";
import { assertConfigDepth } from "./depth.js";
import { stripComments } from "./comments.js";
import { findForbiddenKeys, resolveEnv, type Env } from "./env.js";
import { fromZodIssues, issuesError, type ConfigIssue } from "./issues.js";
import { buildResolved, grantIssues } from "./resolve.js";
import { clientIssues } from "./resolve-clients.js";
import { ConnectorsFileSchema } from "./schema.js";
import { readConfigFile, resolveConfigPath } from "./source.js";
import { assertConfigSize } from "./size.js";
import { byInstance, withStandIns, type Stage } from "./scope.js";
import type { LoadConfigOptions, ResolvedConfig } from "./types.js";

export type { LoadConfigOptions, ResolvedConfig, ResolvedInstance } from "./types.js";
export { resolveConfigPath, type ConfigLocation, type ConfigVia, type ResolveConfigPathOptions } from "./source.js";
export type { ConfigIssue } from "./issues.js";

export async function loadConfig(opts: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const env = opts.env ?? process.env;
  if (opts.config !== undefined && typeof opts.config !== "string") {
    if (opts.config === null || typeof opts.config !== "object" || Array.isArray(opts.config)) {
      throw pbError("PB_ERR_CONFIG_INVALID", "The config must be a path to connectors.json or a plain object.", {
        file: null,
        issues: [],
      });
    }
    return resolveConfigValue(opts.config, {
      file: null,
      dir: path.resolve(cwd, opts.dir ?? "."),
      env,
      scoped: opts.scoped,
    });
  }
  const { file } = resolveConfigPath({ config: opts.config, cwd, env });
  return resolveConfigValue(await readConfigFile(file), { file, dir: path.dirname(file), env, scoped: opts.scoped });
}

export interface ResolveConfigValueOptions {
  /** Absolute path of the file the value came from, or null. */
  file: string | null;
  /** Absolute folder that relative paths resolve against. */
  dir: string;
  env: Env;
  /**
   * Problems inside one instance's entry block only that instance (ResolvedConfig.blocked) instead
   * of the whole load.
   */
  scoped?: boolean;
}

/**
 * Stages 2–6 on an already-parsed value (the raw JSON, comments and all). Every stage that can
 * run does, so one error lists every problem in the file (doctor never stops at the first); the
 * error's code is the first failing stage's. With `scoped`, problems that all sit inside
 * instances become those instances' errors (see scope.ts) and the rest of the file loads.
 */
export function resolveConfigValue(
  raw: unknown,
  { file, dir, env, scoped = false }: ResolveConfigValueOptions,
): ResolvedConfig {
  assertConfigSize(raw, file);
  assertConfigDepth(raw, file);
  let stages: Stage[] = [];
  const forbidden = findForbiddenKeys(raw);
  if (forbidden.length > 0)
    stages.push({ code: "PB_ERR_CONFIG_INVALID", headline: "Forbidden keys", issues: forbidden });

  const resolved = resolveEnv(stripComments(raw), env);
  const scrubber = new Scrubber();
  scrubber.addAll(resolved.secrets);
  const scrub = (text: string): string => scrubber.scrub(text);
  const toError = (st: Stage, prefix = ""): PatchbayError =>
    issuesError(st.code, prefix + st.headline, st.issues, file, scrub, st.extra?.(st.issues) ?? {});
  if (resolved.malformed.length > 0)
    stages.push({ code: "PB_ERR_CONFIG_INVALID", headline: "Malformed ${VAR} references", issues: resolved.malformed });
  if (resolved.missing.length > 0) {
    const variables = (issues: ConfigIssue[]): string[] => [
      ...new Set((issues as typeof resolved.missing).map((m) => m.variable)),
    ];
    stages.push({
      code: "PB_ERR_CONFIG_ENV_MISSING",
      headline: `Environment variables not set (${variables(resolved.missing).join(", ")})`,
      issues: resolved.missing,
      extra: (issues) => ({ variables: variables(issues) }),
    });
  }

  // Forbidden keys are also unknown keys: the schema would only say so a second time.
  // jitless: a config is parsed once per process, and zod's compiled fast path costs more to
  // build (new Function per object schema) than it saves on one parse (measured: about half the CPU).
  let result = ConnectorsFileSchema.safeParse(resolved.value, { reportInput: false, jitless: true });
  if (!result.success) {
    const issues = fromZodIssues(result.error.issues).filter((i) => !forbidden.some((f) => f.pointer === i.pointer));
    if (issues.length > 0 || stages.length === 0)
      stages.push({ code: "PB_ERR_CONFIG_INVALID", headline: "Invalid config", issues });
  }
  const blocked: Record<string, WireError> = {};
  const scopes = scoped && stages.length > 0 ? byInstance(resolved.value, stages) : null;
  if (scopes && scopes.size > 0) {
    const retried = ConnectorsFileSchema.safeParse(
      withStandIns(resolved.value as Record<string, unknown>, scopes.keys()),
      { reportInput: false, jitless: true },
    );
    if (retried.success) {
      result = retried;
      stages = [];
      for (const [id, own] of scopes)
        blocked[id] = toWire(
          combine(own.map((st) => toError({ ...st, headline: st.headline.replace(/\(.*\)$/, "").trim() }, `${id}: `))),
        );
    }
  }
  if (!result.success) throw combine(stages.map((st) => toError(st)));
  const parsed = result.data;
  const found = stages.map((st) => toError(st));

  const aliasResult = resolveAliases(parsed);
  if (aliasResult.issues.length > 0)
    found.push(issuesError("PB_ERR_CONFIG_ALIAS", "Broken aliases", aliasResult.issues, file, scrub));

  const grants = grantIssues(parsed);
  if (grants.length > 0)
    found.push(issuesError("PB_ERR_CONFIG_INVALID", "Grants to unknown instances", grants, file, scrub));
  const ids = SECTIONS.flatMap((section) =>
    Object.entries(parsed[section])
      .filter(([, entry]) => typeof entry !== "string")
      .map(([name]) => `${section}/${name}`),
  );
  const clients = clientIssues(raw, parsed, ids);
  if (clients.length > 0) found.push(issuesError("PB_ERR_CONFIG_INVALID", "Gateway clients", clients, file, scrub));
  if (found.length > 0) throw combine(found);

  const pluginDirsDeclared = !!raw && typeof raw === "object" && Object.hasOwn(raw, "plugins");
  return buildResolved({
    file,
    dir,
    parsed,
    aliases: aliasResult.aliases,
    secrets: resolved.secrets,
    pluginDirsDeclared,
    blocked,
  });
}

/** One error for every stage that failed: the first stage's code, every stage's lines and issues. */
function combine(errors: PatchbayError[]): PatchbayError {
  if (errors.length === 1) return errors[0];
  const [first] = errors;
  const issues = errors.flatMap((e) => (e.data.issues as ConfigIssue[]).map((i) => ({ ...i, code: e.code })));
  const extra = Object.assign({}, ...errors.map((e) => e.data));
  return pbError(first.code, errors.map((e) => e.message).join("\n"), { ...extra, issues });
}
