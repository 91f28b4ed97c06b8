/**
 * The JSON Schema validator mcp-remote gives the SDK Client. The SDK (1.32) uses one for a single
 * job: at each tools/list it compiles a validator for every tool's outputSchema, which callTool
 * then applies. mcp-remote never calls callTool: the host checks structuredContent against the
 * tool's outputSchema itself (connector.ts). The Client's default would build ajv with its formats
 * per connection and compile those schemas for nothing (~15-20 ms of a connection's start,
 * measured in a worker), and the SDK copy bundled for Patchbay's plugins leaves ajv out
 * (scripts/bundle-runtime.mjs), which saves every mcp-remote worker loading it (~20 ms of CPU).
 * Should an SDK upgrade start to validate with it elsewhere, the error says what to change.
 */
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

const notHere: JsonSchemaValidator<never> = () => {
  throw new Error(
    "mcp-remote validates no JSON Schema in the SDK Client (the host checks tool results); a new use of the Client's jsonSchemaValidator needs one in plugins/mcp-remote/src/output-validation.ts",
  );
};

export const hostChecksOutput: jsonSchemaValidator = {
  getValidator: <T>() => notHere as JsonSchemaValidator<T>,
};
