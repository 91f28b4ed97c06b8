/**
 * The JSON Schema validator mcp-remote gives the SDK Client: the SDK's own ajv validator, built
 * on the first validation that needs it. The Client's default builds ajv (with its formats) in
 * its constructor and, at every tools/list, compiles a validator for each tool's outputSchema,
 * for callTool, which this plugin does not use (the host checks structuredContent, connector.ts):
 * ~15-20 ms of each connection's start, measured in a worker. What does validate here (an
 * elicitation answer under `elicitation: "accept_defaults"`) gets the same ajv as before.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";

export function lazySchemaValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
      let check: JsonSchemaValidator<T> | undefined;
      return (input) => {
        check ??= (ajv ??= new AjvJsonSchemaValidator()).getValidator<T>(schema);
        return check(input);
      };
    },
  };
}
