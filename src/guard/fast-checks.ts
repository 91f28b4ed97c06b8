/**
 * Hand-written argument checks for the hot methods, run by guard.ts before the contract's zod
 * schema. Each accepts only values the schema accepts too (never more: a value it does not
 * recognise goes to the schema, which gives the error message), and allocates nothing, so a
 * well-formed call skips zod's parse and its copy. The contract tests hold both to one rule.
 */
import type { Kind } from "../contract/kinds.js";

type Check = (args: unknown[]) => boolean;

/**
 * A plain object that z.record(z.string(), z.unknown()) accepts and would copy unchanged. The
 * odd cases go to zod: an own `constructor` (zod's plain-object test reads it), an own
 * `__proto__` (zod drops it from its copy), symbol keys (zod refuses them).
 */
function isPlainRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  return (
    !Object.hasOwn(v, "constructor") && !Object.hasOwn(v, "__proto__") && Object.getOwnPropertySymbols(v).length === 0
  );
}

/** mcp call(tool, args, overrides?): z.tuple([nonEmpty, record], record.optional()). */
const mcpCall: Check = (args) => {
  if (!Array.isArray(args) || args.length < 2) return false;
  const tool = args[0];
  if (typeof tool !== "string" || tool.length === 0 || !isPlainRecord(args[1])) return false;
  for (let i = 2; i < args.length; i++) if (args[i] !== undefined && !isPlainRecord(args[i])) return false;
  return true;
};

/** Methods without arguments: z.tuple([]). */
const none: Check = (args) => Array.isArray(args) && args.length === 0;

const FAST_ARGS: Partial<Record<Kind, Readonly<Record<string, Check>>>> = {
  mcp: { call: mcpCall, list_tools: none, health_check: none },
  "memory-store": { health_check: none },
  "local-model": { health_check: none },
  agent: { health_check: none, list_agents: none },
  "skill-store": { health_check: none, list: none },
  adapter: { health_check: none },
};

/** True when `args` certainly fit the method's schema; false means "ask the schema". */
export function fastArgsOk(kind: Kind, method: string, args: unknown[]): boolean {
  const table = FAST_ARGS[kind];
  const check = table && Object.hasOwn(table, method) ? table[method] : undefined;
  return check?.(args) === true;
}
