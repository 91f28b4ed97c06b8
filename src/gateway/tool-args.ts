/**
 * A tool's arguments checked before anything crosses to the instance: their size as JSON, then for
 * an mcp tool its input schema (the upstream server checks again). A client's malformed call is
 * answered here, in the gateway's words, and costs the upstream nothing. Compiled validators are kept per tool name
 * until the catalog changes (a tool of the same name may then have another schema).
 */
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { pbError, type PatchbayError } from "../errors.js";
import type { CatalogTool } from "./catalog.js";
import { jsonSize } from "./tool-results.js";

type Validator = ((input: unknown) => { valid: boolean; errorMessage?: string }) | null;

/** A tool call's arguments may serialize to at most this many bytes (the HTTP body limit is the same). */
export const MAX_ARGS_BYTES = 4 * 1024 * 1024;

export class ToolArgs {
  /** Compiled input schemas by tool name (null: one Ajv cannot compile; the server decides). */
  private readonly validators = new Map<string, Validator>();

  constructor(private readonly ajv: AjvJsonSchemaValidator) {}

  forget(): void {
    this.validators.clear();
  }

  check(entry: CatalogTool, args: Record<string, unknown>): PatchbayError | null {
    const { instance, target } = entry.route;
    const size = jsonSize(args);
    if (size === null || size > MAX_ARGS_BYTES)
      return pbError(
        "PB_ERR_CONTRACT_ARGS",
        size === null
          ? `${instance}: the arguments of "${target}" are nested too deeply to be sent.`
          : `${instance}: the arguments of "${target}" are too large (${size} bytes; at most ${MAX_ARGS_BYTES}).`,
        { instance, ...(size === null ? {} : { bytes: size }) },
      );
    if (entry.kind !== "mcp") return null;
    let validate = this.validators.get(entry.tool.name);
    if (validate === undefined) {
      try {
        validate = this.ajv.getValidator(entry.tool.inputSchema as never) as Validator;
      } catch {
        validate = null; // A schema Ajv cannot compile: the server decides.
      }
      this.validators.set(entry.tool.name, validate);
    }
    const verdict = validate?.(args);
    if (!verdict || verdict.valid) return null;
    return pbError(
      "PB_ERR_CONTRACT_ARGS",
      `${entry.route.instance}: arguments of tool "${entry.route.target}" do not match its input schema: ${verdict.errorMessage ?? "invalid"}.`,
      { instance: entry.route.instance, tool: entry.route.target },
    );
  }
}
