/**
 * An mcp tool's arguments checked against its input schema before anything crosses to the
 * instance (the upstream server checks again): a client's malformed call is answered here, in
 * the gateway's words, and costs the upstream nothing. Compiled validators are kept per tool name
 * until the catalog changes (a tool of the same name may then have another schema).
 */
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { pbError, type PatchbayError } from "../errors.js";
import type { CatalogTool } from "./catalog.js";

type Validator = ((input: unknown) => { valid: boolean; errorMessage?: string }) | null;

export class ToolArgs {
  /** Compiled input schemas by tool name (null: one Ajv cannot compile; the server decides). */
  private readonly validators = new Map<string, Validator>();

  constructor(private readonly ajv: AjvJsonSchemaValidator) {}

  forget(): void {
    this.validators.clear();
  }

  check(entry: CatalogTool, args: Record<string, unknown>): PatchbayError | null {
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
