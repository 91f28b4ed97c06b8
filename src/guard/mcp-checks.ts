/**
 * The mcp rules no zod schema can say, run by the guard after a result's shape passed: a tool
 * that declared an outputSchema must answer structuredContent that matches it (MCP 2025-06-18,
 * "Structured content"), and structuredContent, when present, is an object. The host learns each tool's
 * outputSchema from the list_tools answers that pass through it, per instance, so the check
 * holds whatever the plugin does (mcp-remote does not rely on the SDK's own check).
 *
 * Each outputSchema is kept as its JSON text when the list passes and compiled when a result of
 * that tool first needs it: a listing comes back right when a serve's first call is waiting for
 * its instance, and compiling every declared schema then (plus loading ajv, ~40 ms the first
 * time) delayed that call for tools it never used. The text, not the object, so what the caller
 * of list_tools does with the tools it got cannot change what is checked later.
 *
 * Why a module of its own: guard.ts and contract-checks.ts are shared by every kind; the
 * outputSchema cache and the JSON Schema validator belong to mcp alone.
 */
import { createRequire } from "node:module";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { type PatchbayError, pbError } from "../errors.js";

type Rec = Record<string, unknown>;
type Validate = (input: unknown) => { valid: boolean; errorMessage?: string };

/** A schema bigger than this is not compiled (a hostile server could make compiling expensive). */
const MAX_SCHEMA_CHARS = 256 * 1024;

/** A declared outputSchema not compiled yet: its JSON text, taken when the list passed. */
interface Uncompiled {
  text: string;
}

interface ToolSchemas {
  /** tool name → its outputSchema: compiled, not yet compiled, or the reason it cannot be used. */
  byTool: Map<string, Validate | Uncompiled | string>;
  /**
   * Set when the listing failed: the host does not ask again before then (a broken list_tools must
   * not tax every call).
   */
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
  const byTool = new Map<string, Validate | Uncompiled | string>();
  for (const t of tools) {
    if (t.outputSchema && typeof t.outputSchema === "object") byTool.set(String(t.name), snapshot(t.outputSchema));
  }
  known.set(target, { byTool });
}

/** The schema's text to compile later, or why it cannot be used (bounded here, before anything is kept). */
function snapshot(schema: object): Uncompiled | string {
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return "its outputSchema is not plain JSON";
  }
  if (text.length > MAX_SCHEMA_CHARS) return `its outputSchema is larger than ${MAX_SCHEMA_CHARS} characters`;
  return { text };
}

/** The tool's check, compiling its schema on first use (and keeping the result, the reason included). */
function checkFor(target: object, tool: string): Validate | string | undefined {
  const byTool = known.get(target)?.byTool;
  const entry = byTool?.get(tool);
  if (entry === undefined || typeof entry === "string" || typeof entry === "function") return entry;
  const compiled = compile(JSON.parse(entry.text) as Rec);
  byTool?.set(tool, compiled);
  return compiled;
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
  const check = checkFor(target, tool);
  // Fixture and in-process plugins may answer any JSON; only a tool that declared an outputSchema
  // is held to MCP's shape.
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
