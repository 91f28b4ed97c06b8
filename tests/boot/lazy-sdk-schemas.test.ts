/**
 * The MCP SDK's schemas in Patchbay's bundles are built on first use (scripts/lazy-sdk-schemas.mjs).
 * A stand-in must answer as the SDK's own schema does: the same parse results, shapes, keys and
 * type checks, with nothing a proxy could get wrong (its invariants throw TypeErrors).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import * as sdk from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");
const bundled = (await import(pathToFileURL(path.join(root, "dist", "runtime", "mcp-sdk", "types.js")).href)) as Record<
  string,
  unknown
>;
type Schema = { safeParse(v: unknown): { success: boolean; data?: unknown }; _zod: { def: { type: string } } };
const names = Object.keys(sdk).filter((n) => n.endsWith("Schema"));

/** Messages and results a gateway meets, valid and not, to parse with every schema. */
const SAMPLES: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "hi" } } },
  {
    jsonrpc: "2.0",
    id: 2,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "ok" }], structuredContent: { a: 1 } } },
  { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } },
  { content: [{ type: "image", data: "aGk=", mimeType: "image/png" }], isError: true },
  { tools: [{ name: "t", inputSchema: { type: "object" } }], nextCursor: "c" },
  { uri: "file:///x", text: "body" },
  { method: "tools/list", params: { cursor: 7 } },
  {},
  null,
  "text",
  42,
];

describe("the SDK's schemas in the bundles, built on first use", () => {
  it("are stand-ins in the runtime's, the CLI's and the demo server's bundles", () => {
    const standIns = (dir: string) =>
      readdirSync(dir, { recursive: true })
        .filter((f) => /\.m?js$/.test(String(f)))
        .reduce(
          (n, f) => n + (readFileSync(path.join(dir, String(f)), "utf8").match(/lazySchema\(\(\) =>/g)?.length ?? 0),
          0,
        );
    expect(standIns(path.join(root, "dist", "runtime"))).toBeGreaterThanOrEqual(150);
    expect(standIns(path.join(root, "dist", "cli-bundle"))).toBeGreaterThanOrEqual(150);
    expect(standIns(path.join(root, "dist", "servers"))).toBeGreaterThanOrEqual(150);
  });

  it("parse every sample as the SDK's own schemas do", () => {
    expect(names.length).toBeGreaterThanOrEqual(150);
    for (const name of names) {
      const own = (sdk as unknown as Record<string, Schema>)[name];
      const lazy = bundled[name] as Schema;
      expect(lazy, name).toBeDefined();
      for (const sample of SAMPLES) {
        const a = own.safeParse(sample);
        const b = lazy.safeParse(sample);
        expect({ name, sample, success: b.success, data: b.data }).toEqual({
          name,
          sample,
          success: a.success,
          data: a.data,
        });
      }
    }
  });

  it("show the shape, keys, type and prototype of the schema they stand for", () => {
    for (const name of names) {
      const own = (sdk as unknown as Record<string, Schema & { shape?: object }>)[name];
      const lazy = bundled[name] as Schema & { shape?: object; optional(): Schema };
      expect(lazy._zod.def.type, name).toBe(own._zod.def.type);
      expect("_zod" in lazy, name).toBe(true);
      // zod adds some keys on first use, so the order of keys follows what was used: compare the sets.
      expect(new Set(Object.keys(lazy)), name).toEqual(new Set([...Object.keys(own), ...Object.keys(lazy)]));
      expect(Object.keys(lazy), name).toEqual(expect.arrayContaining(["def", "type"]));
      for (const key of Reflect.ownKeys(lazy)) expect(Object.getOwnPropertyDescriptor(lazy, key), name).toBeDefined();
      if (own.shape) expect(Object.keys(lazy.shape ?? {}), name).toEqual(Object.keys(own.shape));
      expect(Object.getPrototypeOf(lazy), name).not.toBe(Object.prototype);
      expect(lazy.optional().safeParse(undefined).success, name).toBe(true);
    }
  });

  it("keep an alias the same object as what it names", () => {
    expect(bundled.JSONRPCErrorSchema).toBe(bundled.JSONRPCErrorResponseSchema);
    expect(bundled.ReadResourceRequestParamsSchema).toBe(bundled.ResourceRequestParamsSchema);
  });

  it("build a schema only when it is first used", () => {
    const text = readFileSync(path.join(root, "dist", "runtime", "mcp-sdk", "types.js"), "utf8");
    const chunk = [...text.matchAll(/from "\.\.\/([^"]+)"/g)].map((m) => m[1]);
    const source = chunk.map((c) => readFileSync(path.join(root, "dist", "runtime", c), "utf8")).join("\n");
    expect(source).toMatch(/const CallToolResultSchema = lazySchema\(\(\) => ResultSchema\.extend\(/);
  });
});
