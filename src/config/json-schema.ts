/**
 * The generated JSON Schemas (schemas/*.schema.json). One function renders them for both
 * scripts/schemas.mjs (write/check, from dist/) and tests/config/schemas.test.ts (from src/),
 * so the file on disk and the staleness test can never disagree about the bytes.
 */
import { z } from "zod";
import { ManifestSchema } from "../contract/manifest.js";
import { ConnectorsFileSchema } from "./schema.js";

type JsonSchema = Record<string, unknown>;

/**
 * A URN, not a URL: there is no hosted copy to point at, and editors take the schema from the
 * file's own "$schema" path anyway. $id only has to be stable and unique.
 */
const ID_PREFIX = "urn:patchbay:schema:";

function generate(schema: z.ZodType, id: string): JsonSchema {
  // io "input": defaults make a field optional for the person writing the file.
  const { $schema, title, description, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    target: "draft-2020-12",
  }) as JsonSchema;
  // Fixed key order at the top, so a reader sees what the file is before its properties.
  return { $schema, $id: ID_PREFIX + id, title, description, ...rest };
}

export function connectorsJsonSchema(): JsonSchema {
  return generate(ConnectorsFileSchema, "connectors:v1");
}

function pluginJsonSchema(): JsonSchema {
  return generate(ManifestSchema, "plugin:v1");
}

/** The exact bytes of a schema file: 2-space JSON and a trailing newline. */
function renderSchemaFile(schema: JsonSchema): string {
  return JSON.stringify(schema, null, 2) + "\n";
}

/** Every generated file, by its path relative to the repository root. */
export function schemaFiles(): { path: string; text: string }[] {
  return [
    { path: "schemas/connectors.schema.json", text: renderSchemaFile(connectorsJsonSchema()) },
    { path: "schemas/plugin.schema.json", text: renderSchemaFile(pluginJsonSchema()) },
  ];
}
