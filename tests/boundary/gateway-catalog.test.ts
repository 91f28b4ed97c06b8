/**
 * An upstream server's catalog is bounded at the gateway: a server listing 600 tools with
 * 5,000-character descriptions and one tool with a 100 KB input schema reaches a real MCP client
 * (over `patchbay serve --mcp`) cut to size, with a warning naming the instance; an honest
 * neighbour's tools are all there.
 */
import { afterAll, describe, expect, it } from "vitest";
import {
  boundTools,
  MAX_DESCRIPTION_CHARS,
  MAX_INSTANCE_LIST_CHARS,
  MAX_TOOLS_PER_INSTANCE,
} from "../../src/gateway/catalog-bounds.js";
import { cleanupTempDirs, waitFor, writeConfig } from "../helpers.js";
import { connectStdio } from "../gateway/_gateway.js";
import { HOSTILE } from "../mcp/_host.js";

afterAll(cleanupTempDirs);

describe("an upstream server's tool catalog", () => {
  it("reaches clients bounded in tool count, description and schema size and total size, with a warning naming the instance", async () => {
    const { file } = writeConfig({
      defaults: { timeout_ms: 60_000, health_timeout_ms: 30_000, health_interval_ms: 60_000 },
      mcpConnectors: {
        big: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE, "--big-catalog", "600"] } },
        gw: { plugin: "fx-echo" },
      },
    });
    const s = await connectStdio(file);
    try {
      const tools = (await s.client.listTools()).tools;
      const big = tools.filter((t) => t.name.startsWith("big__"));
      expect(tools.some((t) => t.name === "gw__echo")).toBe(true);
      expect(big.length, s.stderr().slice(-3000)).toBeGreaterThan(0);
      expect(big.length).toBeLessThanOrEqual(MAX_TOOLS_PER_INSTANCE);
      for (const t of big) expect((t.description ?? "").length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS + 1);
      expect(big.some((t) => t.name === "big__wide")).toBe(false);
      expect(JSON.stringify(big).length).toBeLessThanOrEqual(MAX_INSTANCE_LIST_CHARS + 64 * 1024);
      await waitFor(async () => {
        if (!/mcpConnectors\/big: its server lists \d+ tools/.test(s.stderr())) throw new Error("no warning yet");
      }, 400);
      expect(s.stderr()).toContain("mcpConnectors/big");
    } finally {
      await s.close();
    }
  }, 120_000);
});

describe("boundTools", () => {
  it("leaves out a tool whose schema is over the bound and keeps the rest, naming the instance", () => {
    const warnings: string[] = [];
    const wide = {
      name: "wide",
      inputSchema: {
        type: "object",
        properties: Object.fromEntries(
          Array.from({ length: 2_000 }, (_, i) => [`p${i}`, { type: "string", description: "x".repeat(40) }]),
        ),
      },
    };
    const out = boundTools("mcpConnectors/h", [wide, { name: "ok", description: "d".repeat(10_000) }], (m) =>
      warnings.push(m),
    );
    expect(out.map((t) => t.name)).toEqual(["ok"]);
    expect(String((out[0] as { description?: unknown }).description).length).toBe(MAX_DESCRIPTION_CHARS + 1);
    expect(warnings.join("\n")).toMatch(
      /mcpConnectors\/h: 1 tools with a schema over \d+ characters were left out \("wide"\)/,
    );
    expect(warnings.join("\n")).toContain("mcpConnectors/h: 1 tool descriptions longer than");
  });
});
