/**
 * lazySchemaValidator (src/lazy-validator.ts) defers building ajv to the first validation; what it
 * answers must be what the SDK's own ajv validator answers, formats included.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation/types.js";
import { describe, expect, it } from "vitest";
import { lazySchemaValidator } from "../src/lazy-validator.js";

const schema = {
  type: "object",
  properties: { email: { type: "string", format: "email" }, n: { type: "integer", minimum: 1, default: 3 } },
  required: ["email"],
  additionalProperties: false,
} as JsonSchemaType;

describe("lazySchemaValidator", () => {
  it("answers exactly as the SDK's ajv validator does, valid or not", () => {
    const lazy = lazySchemaValidator().getValidator(schema);
    const sdk = new AjvJsonSchemaValidator().getValidator(schema);
    for (const input of [
      { email: "a@example.com", n: 2 },
      { email: "not an email" },
      { email: "a@example.com", n: 0 },
      { email: "a@example.com", extra: true },
      {},
      "a string",
    ]) {
      expect(lazy(input), JSON.stringify(input)).toEqual(sdk(input));
    }
    expect(lazy({ email: "nope" }).valid).toBe(false);
  });

  it("keeps one validator per schema and one ajv for all of them", () => {
    const v = lazySchemaValidator();
    const a = v.getValidator({ type: "string" } as JsonSchemaType);
    const b = v.getValidator({ type: "number" } as JsonSchemaType);
    expect(a("x").valid).toBe(true);
    expect(a(1).valid).toBe(false);
    expect(b(1).valid).toBe(true);
    expect(b("x").valid).toBe(false);
  });
});
