/**
 * The capability check, in one place, before anything crosses the boundary: which methods an
 * instance may be asked for, which MCP tools, whether the arguments fit the contract; and on the
 * way back, whether the result does. Unknown, undeclared and denied calls get distinct codes.
 */
import { randomUUID } from "node:crypto";
import { pbError, type PatchbayError } from "../errors.js";
import { callableMethods, METHODS } from "../contract/kinds.js";
import { portableNameProblem } from "../contract/names.js";
import { suggest } from "../contract/suggest.js";
import { methodSchema } from "../contract/schemas.js";
import type { GuardTarget, HostMeta } from "../contract/target.js";
import { checkContractResult, prefillCorrelation, prepareArgs, violation } from "./contract-checks.js";
import { checkMcpResult } from "./mcp-checks.js";
import { fastArgsOk } from "./fast-checks.js";

export { contractTimeout } from "./contract-checks.js";
export type { GuardTarget, HostMeta };

/** Checks a call and returns the arguments to send (identity merged, delivery meta filled). */
export function checkCall(target: GuardTarget, method: string, args: unknown[], hostMeta?: HostMeta): unknown[] {
  const { instance, kind } = target;
  const table = METHODS[kind];
  if (!table.required.includes(method) && !table.optional.includes(method)) {
    throw pbError(
      "PB_ERR_METHOD_UNKNOWN",
      `${instance}: "${method}" is not a method of the ${kind} contract (methods: ${[...table.required, ...table.optional].join(", ")}).`,
      { instance, method, kind },
    );
  }
  if (!callable(target).has(method)) {
    throw pbError(
      "PB_ERR_METHOD_UNDECLARED",
      `${instance}: the plugin does not declare the optional method "${method}" (declared: ${target.capabilities.join(", ") || "none"}).`,
      { instance, method },
    );
  }
  const schema = methodSchema(kind, method);
  let checked = prefill(target, method, args, hostMeta);
  if (schema && !fastArgsOk(kind, method, checked)) {
    const parsed = schema.args.safeParse(checked);
    if (!parsed.success) throw argsError(instance, method, parsed.error.issues);
    checked = parsed.data as unknown[];
  }
  return prepare(target, method, prepareArgs(target, method, checked));
}

/** The methods a target may be asked for, computed once per target (its capabilities never change). */
const callableCache = new WeakMap<GuardTarget, Set<string>>();
function callable(target: GuardTarget): Set<string> {
  let set = callableCache.get(target);
  if (!set) callableCache.set(target, (set = callableMethods(target.kind, target.capabilities)));
  return set;
}

function prepare(target: GuardTarget, method: string, args: unknown[]): unknown[] {
  const { instance, kind } = target;
  if (kind === "mcp" && method === "call") {
    const tool = args[0] as string;
    if (target.allowedTools && !target.allowedTools.includes(tool)) {
      throw pbError(
        "PB_ERR_TOOL_DENIED",
        `${instance}: tool "${tool}" is not allowed (allowed_tools: ${target.allowedTools.join(", ") || "none"}).`,
        { instance, tool },
      );
    }
    // Nothing to merge (the common call): the arguments as they are, without a copy.
    if (target.identity === null && args.length === 2) return args;
    // The configured identity is a partial merge: keys it names win over the caller's, others flow through.
    const overrides = { ...((args[2] as Record<string, unknown> | undefined) ?? {}), ...(target.identity ?? {}) };
    return Object.keys(overrides).length > 0 ? [tool, args[1], overrides] : [tool, args[1]];
  }
  if (kind === "skill-store" && ["get", "write", "delete"].includes(method))
    assertName(instance, method, args[0], "skill name");
  return args;
}

/** What the host fills before the arguments are checked: the delivery meta callers never construct. */
function prefill(target: GuardTarget, method: string, args: unknown[], hostMeta?: HostMeta): unknown[] {
  if (target.kind !== "agent" || (method !== "deliver" && method !== "request_response")) return args;
  const payload = args[1];
  if (!payload || typeof payload !== "object") return args;
  const filled = [
    args[0],
    withHostMeta(payload as Record<string, unknown>, hostMeta?.dispatch_id, hostMeta?.sent_at),
    ...args.slice(2),
  ];
  return prefillCorrelation(method, filled);
}

/**
 * The host owns DeliveryMeta: a fresh dispatch_id and the host's emit clock on every call,
 * whatever the caller passed. A broadcast passes the dispatch_id it shares on purpose.
 */
function withHostMeta(
  payload: Record<string, unknown>,
  dispatchId: string = randomUUID(),
  sentAt: number = Date.now(),
): Record<string, unknown> {
  const meta = (payload.meta ?? {}) as Record<string, unknown>;
  const origin = meta.origin ?? { skill_name: "patchbay", trigger_kind: "inline" };
  return { ...payload, meta: { ...meta, origin, dispatch_id: dispatchId, sent_at: sentAt } };
}

function assertName(instance: string, method: string, name: unknown, what: string): void {
  const problem = portableNameProblem(name);
  if (problem)
    throw pbError("PB_ERR_NAME_INVALID", `${instance}.${method}(): ${what} ${JSON.stringify(name)} ${problem}.`, {
      instance,
      method,
    });
}

/** Checks a plugin's result against the contract; returns it, filtered where the host filters. */
export function checkResult(target: GuardTarget, method: string, args: unknown[], result: unknown): unknown {
  const { instance, kind } = target;
  const schema = methodSchema(kind, method);
  // A result schema that accepts anything (mcp call's) has nothing to say: skip its parse.
  if (schema && !acceptsAnything(schema.result)) {
    const parsed = schema.result.safeParse(result);
    if (!parsed.success)
      throw violation(
        instance,
        method,
        parsed.error.issues.map((i) => `${i.path.join(".") || "(result)"}: ${i.message}`).join("; "),
      );
  }
  if (schema) checkContractResult(target, method, args, result);
  if (schema && kind === "mcp") checkMcpResult(target, method, args, result);
  if (kind === "mcp" && method === "list_tools" && target.allowedTools) {
    const allowed = target.allowedTools;
    const tools = result as { name: string }[];
    target.allowedNotOffered = notOffered(allowed, tools, target.allowedNotOffered);
    return tools.filter((t) => allowed.includes(t.name));
  }
  if (kind === "mcp" && method === "call" && isToolError(result)) {
    throw pbError(
      "PB_ERR_TOOL_ERROR",
      `${instance}: tool "${String(args[0])}" reported an error: ${toolErrorText(result)}`,
      { instance, tool: args[0], result: result as Record<string, unknown> },
    );
  }
  return result;
}

function acceptsAnything(schema: unknown): boolean {
  return (schema as { _zod?: { def?: { type?: string } } })._zod?.def?.type === "unknown";
}

function isToolError(result: unknown): boolean {
  return !!result && typeof result === "object" && (result as { isError?: unknown }).isError === true;
}

function toolErrorText(result: unknown): string {
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) return "(no message)";
  return (
    content
      .filter((c) => c && c.type === "text")
      .map((c) => String(c.text))
      .join("\n") || "(no message)"
  );
}

function argsError(
  instance: string,
  method: string,
  issues: { path: PropertyKey[]; message: string }[],
): PatchbayError {
  const detail = issues
    .map((i) => `argument ${i.path.length ? i.path.map(String).join(".") : "list"}: ${i.message}`)
    .join("; ");
  return pbError("PB_ERR_CONTRACT_ARGS", `${instance}.${method}(): ${detail}.`, { instance, method });
}

/**
 * The allowed names `tools` does not have, each with its likeliest offered twin (a typo's fix). The
 * search is bounded (the plugin chooses how many tools and how long their names): the first 1,000
 * names of at most 128 characters, for the first 20 names missing.
 */
function notOffered(
  allowed: readonly string[],
  tools: readonly { name: string }[],
  before: GuardTarget["allowedNotOffered"],
): NonNullable<GuardTarget["allowedNotOffered"]> {
  const names = new Set(tools.map((t) => t.name));
  const missing = allowed.filter((a) => !names.has(a)).slice(0, 20);
  if (missing.length === 0) return [];
  // Every list (each live health tick re-reads it) finds the same typos: the search runs when they change.
  if (before?.length === missing.length && before.every((b, i) => b.name === missing[i])) return before;
  const offered = [...names].filter((n) => n.length <= 128).slice(0, 1_000);
  return missing.map((name) => ({ name, suggestion: suggest(name, offered) }));
}
