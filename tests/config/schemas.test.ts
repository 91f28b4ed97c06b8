/**
 * schemas/*.schema.json are generated from the zod sources. This test regenerates them from
 * src/ with the same function scripts/schemas.mjs uses, so it fails whenever a file is stale.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connectorsJsonSchema, schemaFiles } from "../../src/config/json-schema.js";
import { portableNameProblem } from "../../src/contract/names.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("generated JSON Schemas", () => {
  for (const { path, text } of schemaFiles()) {
    it(`${path} is up to date (else: npm run build && npm run schemas)`, () => {
      let onDisk: string | null = null;
      try {
        onDisk = readFileSync(root + path, "utf8");
      } catch {
        // reported by the assertion below
      }
      expect(onDisk, `${path} is stale: run npm run build && npm run schemas`).toBe(text);
    });
  }

  it("documents every property for editors", () => {
    const undocumented: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (!node || typeof node !== "object") return;
      const n = node as Record<string, unknown>;
      if (n.properties && typeof n.properties === "object") {
        for (const [key, prop] of Object.entries(n.properties as Record<string, Record<string, unknown>>)) {
          if (typeof prop.description !== "string") undocumented.push(`${at}/${key}`);
        }
      }
      for (const [key, child] of Object.entries(n)) walk(child, `${at}/${key}`);
    };
    walk(connectorsJsonSchema(), "");
    expect(undocumented).toEqual([]);
  });

  it("lets editors accept _ comment keys and portable instance names", () => {
    const schema = connectorsJsonSchema() as { properties: Record<string, { propertyNames?: { pattern: string } }> };
    const pattern = new RegExp(schema.properties.memoryStores.propertyNames!.pattern);
    for (const name of ["primary", "gemma2", "claude-code", "a.b_c", "_comment"])
      expect(pattern.test(name), name).toBe(true);
    // The JSON Schema may be looser than portableNameProblem (reserved names), never stricter.
    for (const name of ["-x", "a/b", "", "a b"]) {
      expect(portableNameProblem(name)).not.toBeNull();
      expect(pattern.test(name), name).toBe(false);
    }
  });
});
