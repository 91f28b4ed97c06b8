/**
 * What the gateway offers and how it names it: read-only by default, writes only when the
 * gateway section opts in, impossible settings refused with their pointer; names stable, valid
 * and unique; the guard's identity merge and secret scrubbing apply to gateway calls.
 */
import { afterAll, describe, expect, it } from "vitest";
import { nameTools, MAX_TOOL_NAME, type ToolRoute } from "../../src/gateway/names.js";
import { cleanupTempDirs, runCli, writeConfig } from "../helpers.js";
import { childEnv, connectStdio, toolText } from "./_gateway.js";

afterAll(cleanupTempDirs);

const SECRET = "s3cr3t-gateway-token-value";
const env = { FX_TOKEN: SECRET };

const route = (instance: string, target: string): ToolRoute => {
  const [section, name] = instance.split("/") as [ToolRoute["section"], string];
  return { instance, section, name, target };
};

describe("tool names", () => {
  it("say which instance they reach and are valid, unique and independent of order", () => {
    const routes = [
      route("mcpConnectors/github", "search"),
      route("memoryStores/primary", "query"),
      route("mcpConnectors/my.server", "do it"),
      route("mcpConnectors/x", "t".repeat(100)),
    ];
    const names = [...nameTools(routes).keys()];
    expect(names.slice(0, 2)).toEqual(["github__search", "memory__primary__query"]);
    for (const n of names) {
      expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(n.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
    }
    expect(names[2]).toMatch(/^my_server__do_it_[0-9a-f]{6}$/);
    expect([...nameTools([...routes].reverse()).keys()].sort()).toEqual([...names].sort());
  });

  it("keep a contract method's name when an mcp tool would read as it; the tool gets a name of its own instance", () => {
    // "memory" (an mcp connector) + "primary__query" would read as the memory store's tool.
    const a = route("memoryStores/primary", "query");
    const b = route("mcpConnectors/memory", "primary__query");
    const named = nameTools([a, b]);
    expect(named.size).toBe(2);
    expect(named.get("memory__primary__query")).toBe(a);
    const other = [...named.keys()].find((n) => named.get(n) === b)!;
    expect(other).toMatch(/^memory__primary_query_[0-9a-f]{6}$/);
  });
});

describe("exposure", () => {
  const base = (gateway?: Record<string, unknown>) =>
    writeConfig({
      defaults: { health_interval_ms: 60_000 },
      memoryStores: { primary: { plugin: "sqlite-memory", config: { path: "mem.db" } } },
      mcpConnectors: {
        echo: { plugin: "fx-echo", identity: { agentId: "gateway-agent" }, config: { token: "${FX_TOKEN}" } },
      },
      ...(gateway ? { gateway } : {}),
    });

  it("offers read methods by default and a write only when the gateway section opts in", async () => {
    const byDefault = await connectStdio(base().file, [], env);
    try {
      const names = (await byDefault.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["memory__primary__query", "memory__primary__get", "echo__echo"]));
      expect(names).not.toContain("memory__primary__write");
    } finally {
      await byDefault.close();
    }
    const optedIn = await connectStdio(
      base({ expose: { "memoryStores/primary": ["query", "write"], "mcpConnectors/echo": false } }).file,
      [],
      env,
    );
    try {
      const names = (await optedIn.client.listTools()).tools.map((t) => t.name).sort();
      expect(names).toEqual(["memory__primary__query", "memory__primary__write"]);
      const written = await optedIn.client.callTool({
        name: "memory__primary__write",
        arguments: { summary: "hello gateway", domain_tags: ["test"] },
      });
      expect(written.isError, toolText(written)).toBeFalsy();
      expect(JSON.parse(toolText(written))).toHaveProperty("id");
    } finally {
      await optedIn.close();
    }
  });

  it("refuses an impossible gateway section with the JSON pointer", async () => {
    const { file, dir } = base({ expose: { "memoryStores/primary": ["delete"], "mcpConnectors/nope": true } });
    const r = await runCli(["serve", "--config", file], { cwd: dir, env: childEnv(env) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PB_ERR_CONFIG_INVALID");
    expect(r.stderr).toContain("/gateway/expose/memoryStores~1primary");
    expect(r.stderr).toContain('"mcpConnectors/nope" is not an instance');
  });

  it("merges the configured identity and scrubs secrets from gateway errors", async () => {
    const { file } = base();
    const s = await connectStdio(file, [], env);
    try {
      const echoed = JSON.parse(toolText(await s.client.callTool({ name: "echo__echo", arguments: { text: "hi" } })));
      expect(echoed.overrides).toEqual({ agentId: "gateway-agent" });
      const thrown = await s.client.callTool({ name: "echo__throw", arguments: {} });
      expect(toolText(thrown)).toMatch(/^\[PB_ERR_PLUGIN_THREW\]/);
      expect(toolText(thrown)).not.toContain(SECRET);
      expect(s.stderr()).not.toContain(SECRET);
    } finally {
      await s.close();
    }
  });
});
