/**
 * The mcp rules no zod schema can say, run by the guard after a result's shape passed: a tool
 * that declared an outputSchema must answer structuredContent that matches it (MCP 2025-06-18,
 * "Structured content"), and structuredContent, when present, is an object. The host learns each tool's
 * outputSchema from the list_tools answers that pass through it, per instance, so the check
 * holds whatever the plugin does (mcp-remote does not rely on the SDK's own check).
 *
 * Why a module of its own: guard.ts and contract-checks.ts are shared by every kind; the
 * outputSchema cache and the JSON Schema validator belong to mcp alone.
 */
import { createRequire } from "node:module";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { pbError, type PatchbayError } from "../errors.js";

type Rec = Record<string, unknown>;
type Validate = (input: unknown) => { valid: boolean; errorMessage?: string };

/** A schema bigger than this is not compiled (a hostile server could make compiling expensive). */
const MAX_SCHEMA_CHARS = 256 * 1024;

interface ToolSchemas {
  /** tool name → its compiled outputSchema check, or the reason it could not be compiled. */
  byTool: Map<string, Validate | string>;
  /** Set when the listing failed: the host does not ask again before then (a broken list_tools must not tax every call). */
  retryAt?: number;
}

/** After a failed listing, how long calls go unchecked before the host lists again. */
const RETRY_LISTING_MS = 30_000;

/** Per guard target (one per instance, replaced when the instance is re-planned). */
const known = new WeakMap<object, ToolSchemas>();
let ajv: AjvJsonSchemaValidator | null = null;

/** Whether the host has seen this instance's tool list (so it knows which tools declared an outputSchema). */
export function knowsTools(target: object): boolean {
  const k = known.get(target);
  return k !== undefined && (k.retryAt === undefined || Date.now() < k.retryAt);
}

/** The host's own listing failed: calls are not checked until a listing succeeds (or RETRY_LISTING_MS passed). */
export function toolsUnknown(target: object): void {
  known.set(target, { byTool: new Map(), retryAt: Date.now() + RETRY_LISTING_MS });
}

/** Called with every list_tools answer that passed the schema: remembers each tool's outputSchema. */
function rememberTools(target: object, tools: readonly Rec[]): void {
  const byTool = new Map<string, Validate | string>();
  for (const t of tools) {
    if (t.outputSchema && typeof t.outputSchema === "object")
      byTool.set(String(t.name), compile(t.outputSchema as Rec));
  }
  known.set(target, { byTool });
}

/**
 * The SDK's ajv validator, required on the first outputSchema the host sees rather than imported
 * with the host: ajv is ~40 ms of every boot, and most configs never list a tool with an
 * outputSchema. require() keeps compile() synchronous (the guard's result check is).
 */
function loadAjv(): typeof AjvJsonSchemaValidator {
  const mod = createRequire(import.meta.url)("@modelcontextprotocol/sdk/validation/ajv") as {
    AjvJsonSchemaValidator: typeof AjvJsonSchemaValidator;
  };
  return mod.AjvJsonSchemaValidator;
}

function compile(schema: Rec): Validate | string {
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return "its outputSchema is not plain JSON";
  }
  if (text.length > MAX_SCHEMA_CHARS) return `its outputSchema is larger than ${MAX_SCHEMA_CHARS} characters`;
  try {
    ajv ??= new (loadAjv())();
    return ajv.getValidator(schema as never) as Validate;
  } catch (err) {
    return `its outputSchema is not a valid JSON Schema (${(err as Error).message.slice(0, 200)})`;
  }
}

/** After a call's result: MCP's result shape, and structuredContent against the tool's outputSchema. */
function checkMcpCallResult(instance: string, tool: string, result: unknown, target: object): void {
  const bad = (why: string): PatchbayError =>
    pbError("PB_ERR_CONTRACT_VIOLATION", `${instance}.call(): tool "${tool}" ${why}.`, {
      instance,
      method: "call",
      tool,
    });
  const check = known.get(target)?.byTool.get(tool);
  // Fixture and in-process plugins may answer any JSON; only a tool that declared an outputSchema is held to MCP's shape.
  if (!result || typeof result !== "object" || Array.isArray(result)) {
    if (check !== undefined)
      throw bad("declares an outputSchema but answered something other than an MCP CallToolResult object");
    return;
  }
  const r = result as Rec;
  if (
    r.structuredContent !== undefined &&
    (typeof r.structuredContent !== "object" || r.structuredContent === null || Array.isArray(r.structuredContent))
  ) {
    throw bad("answered structuredContent that is not an object");
  }
  if (r.isError === true || check === undefined) return;
  if (typeof check === "string") throw bad(`declares an output schema the host cannot use: ${check}`);
  if (r.structuredContent === undefined) throw bad("declares an outputSchema but answered no structuredContent");
  const verdict = check(r.structuredContent);
  if (!verdict.valid)
    throw bad(
      `answered structuredContent that does not match its own outputSchema: ${(verdict.errorMessage ?? "invalid").slice(0, 500)}`,
    );
}

/** The guard's one hook: every mcp result whose shape passed comes through here. */
export function checkMcpResult(target: { instance: string }, method: string, args: unknown[], result: unknown): void {
  if (method === "list_tools") rememberTools(target, result as Rec[]);
  else if (method === "call") checkMcpCallResult(target.instance, String(args[0]), result, target);
}
