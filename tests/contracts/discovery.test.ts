/**
 * Discovery: host.capabilities() and host.list(section) report, per instance, kind,
 * plugin@version, declared optional methods and memory modes/filters, MCP tools after
 * allowed_tools, agents, and health state; `patchbay list --json` shows the same from the
 * declarations without booting, and `--live` boots to add health, tools and agents. plugin.json
 * declarations that would be silently ignored are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, runCli, writeConfig } from "../helpers.js";

let host: Host;
let dir: string;

const config = {
  memoryStores: {
    open: { plugin: "fx-mem-open" },
    down: { plugin: "fx-health", required: false, config: { health: "false" } },
  },
  mcpConnectors: {
    narrow: { plugin: "fx-mcp-tool-error", allowed_tools: ["ok"] },
    all: { plugin: "fx-mcp-tool-error" },
  },
  agentConnectors: { echo: { plugin: "fx-agent-echo", config: { agents: ["perry", "ops"] } }, primary: "echo" },
};

beforeAll(async () => {
  const written = writeConfig(config);
  dir = written.dir;
  host = await createHost({ config: written.file, logLevel: "silent" });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

describe("discovery", () => {
  it("capabilities() describes every instance, live", async () => {
    const caps = Object.fromEntries((await host.capabilities()).map((c) => [c.id, c]));
    expect(caps["memoryStores/open"]).toMatchObject({
      kind: "memory-store",
      plugin: "fx-mem-open@1.0.0",
      state: "ready",
      methods: ["query"],
      optional: [],
      modes: ["fts", "semantic"],
      filters: ["vault"],
      error: null,
    });
    expect(caps["memoryStores/down"]).toMatchObject({
      state: "degraded",
      required: false,
      error: { code: "PB_ERR_HEALTH_FAILED" },
    });
    expect(caps["mcpConnectors/narrow"]).toMatchObject({ kind: "mcp", allowedTools: ["ok"], tools: [{ name: "ok" }] });
    expect(caps["mcpConnectors/all"].tools!.map((t) => t.name)).toEqual(["fail", "ok"]);
    expect(caps["mcpConnectors/all"].allowedTools).toBeNull();
    expect(caps["agentConnectors/echo"]).toMatchObject({
      kind: "agent",
      optional: ["agent_status"],
      agents: ["perry", "ops"],
      aliases: ["agentConnectors/primary"],
    });
    expect(caps["agentConnectors/echo"].methods).toEqual(
      expect.arrayContaining(["list_agents", "deliver", "wake", "request_response", "agent_status"]),
    );
  });

  it("list(section) answers one section", async () => {
    expect((await host.list("mcpConnectors")).map((c) => c.id)).toEqual(["mcpConnectors/narrow", "mcpConnectors/all"]);
    expect(await host.list("skillStores")).toEqual([]);
  });

  it("patchbay list --json shows the same declarations without booting; --live adds health, tools and agents", async () => {
    const cold = await runCli(["list", "--json"], { cwd: dir });
    expect(cold.code).toBe(0);
    const coldCaps = Object.fromEntries(
      JSON.parse(cold.stdout).instances.map((i: { id: string; capabilities: unknown }) => [i.id, i.capabilities]),
    );
    expect(coldCaps["memoryStores/open"]).toMatchObject({
      kind: "memory-store",
      plugin: "fx-mem-open@1.0.0",
      state: "not-started",
      modes: ["fts", "semantic"],
      filters: ["vault"],
    });
    expect(coldCaps["mcpConnectors/narrow"]).toMatchObject({ allowedTools: ["ok"], tools: null });

    const live = await runCli(["list", "--json", "--live"], { cwd: dir });
    expect(live.code).toBe(0);
    const liveCaps = Object.fromEntries(
      JSON.parse(live.stdout).instances.map((i: { id: string; capabilities: unknown }) => [i.id, i.capabilities]),
    );
    const fromHost = Object.fromEntries((await host.capabilities()).map((c) => [c.id, c]));
    for (const id of Object.keys(fromHost)) {
      const { healthMs: _a, ...expected } = fromHost[id];
      const { healthMs: _b, ...got } = liveCaps[id] as typeof expected & { healthMs: number };
      expect(got, id).toEqual(JSON.parse(JSON.stringify(expected)));
    }
    const human = await runCli(["list", "--live"], { cwd: dir });
    expect(human.stdout).toMatch(/mcpConnectors\/narrow.*ready.*tools: ok/);
  });

  it("refuses memory declarations on other kinds and core keys listed as filters", async () => {
    const { file } = writeConfig({
      mcpConnectors: { m: { plugin: "fx-bad-modes" } },
      memoryStores: { f: { plugin: "fx-bad-filters" } },
    });
    const err = await createHost({ config: file, logLevel: "silent" }).catch((e) => e);
    expect(err).toMatchObject({ code: "PB_ERR_BOOT_FAILED" });
    expect(err.message).toContain('"modes" applies to memory-store plugins only');
    expect(err.message).toContain('filters must not list "limit"');
  });
});
