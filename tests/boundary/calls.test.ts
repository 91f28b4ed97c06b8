import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, logSink, writeConfig } from "../helpers.js";

const SECRET = "s3cr3t-token-value";
let host: Host;
const sink = logSink();

beforeAll(async () => {
  const { file } = writeConfig({
    mcpConnectors: {
      echo: {
        plugin: "fx-echo",
        config: { prefix: "> ", token: "${FX_TOKEN}", dir: "data" },
        identity: { agentId: "ops-bot" },
        timeout_ms: 2000,
      },
      narrow: { plugin: "fx-echo", allowed_tools: ["echo"] },
      none: { plugin: "fx-echo", allowed_tools: [] },
    },
    memoryStores: { liar: { plugin: "fx-liar" } },
  });
  host = await createHost({
    config: file,
    env: { FX_TOKEN: SECRET, FX_ALLOWED: "yes", OTHER_SECRET: "not-for-plugins" },
    logDestination: sink.stream,
    logLevel: "debug",
  });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

describe("calls through the boundary", () => {
  it("answers a contract call from the worker", async () => {
    await expect(host.mcp("echo").call("echo", { text: "hi" })).resolves.toMatchObject({ text: "> hi" });
  });

  it("merges the configured identity over per-call overrides: named keys win, others flow through", async () => {
    const result = (await host.mcp("echo").call("echo", { text: "x" }, { agentId: "intruder", isAdmin: true })) as {
      overrides: unknown;
    };
    expect(result.overrides).toEqual({ agentId: "ops-bot", isAdmin: true });
  });

  it("refuses a method outside the contract with its own code", async () => {
    await expect(host.call("mcpConnectors/echo", "delete_everything", [])).rejects.toMatchObject({
      code: "PB_ERR_METHOD_UNKNOWN",
    });
  });

  it("refuses an optional method the manifest does not declare", async () => {
    await expect(host.memory("liar").write({ summary: "x" })).rejects.toMatchObject({
      code: "PB_ERR_METHOD_UNDECLARED",
    });
  });

  it("checks arguments against the contract before sending", async () => {
    await expect(
      host.call("memoryStores/liar", "query", [{ query: "x", limit: -1, mode: "fts" }]),
    ).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS" });
  });

  it("denies a tool outside allowed_tools before the plugin sees it, and filters list_tools", async () => {
    // fx-echo's "log" tool writes a log line bound to its instance the moment it runs: a denied
    // call that reached the plugin would leave one from "narrow".
    const ranLog = (instance: string) =>
      sink.lines.some((l) => JSON.parse(l).instance === instance && String(JSON.parse(l).msg).startsWith("leaking"));
    await expect(host.mcp("narrow").call("log", {})).rejects.toMatchObject({ code: "PB_ERR_TOOL_DENIED" });
    await expect(host.mcp("narrow").call("env", {})).rejects.toMatchObject({ code: "PB_ERR_TOOL_DENIED" });
    await expect(host.mcp("narrow").list_tools()).resolves.toEqual([{ name: "echo" }]);
    await expect(host.mcp("none").call("echo", { text: "x" })).rejects.toMatchObject({ code: "PB_ERR_TOOL_DENIED" });
    await expect(host.mcp("none").list_tools()).resolves.toEqual([]);
    // An allowed call answered after the denied one: anything the worker did before it has been delivered.
    await expect(host.mcp("narrow").call("echo", { text: "after" })).resolves.toMatchObject({ text: "after" });
    expect(ranLog("mcpConnectors/narrow")).toBe(false);
  });

  it("gives the worker only the environment its manifest names", async () => {
    const { env } = (await host.mcp("echo").call("env", {})) as { env: Record<string, string> };
    expect(env).toEqual({ FX_ALLOWED: "yes" });
  });

  it("resolves path-marked config fields against the connectors.json folder", async () => {
    const { config } = (await host.mcp("echo").call("config", {})) as { config: { dir: string } };
    expect(config.dir).toMatch(/^\/.*\/data$/);
  });

  it("rejects results that break the memory contract", async () => {
    const q = (query: string) => host.memory("liar").query({ query, limit: 2, mode: "fts" });
    await expect(q("no-summary")).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_VIOLATION" });
    await expect(q("over-limit")).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_VIOLATION" });
    await expect(q("dup-curated")).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      data: { field: "pinned" },
    });
    await expect(q("function")).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_VIOLATION" });
    await expect(q("fine")).resolves.toEqual([{ id: "m1", summary: "memory 1" }]);
  });

  it("scrubs a secret the plugin throws or logs", async () => {
    const err = await host
      .mcp("echo")
      .call("throw", {})
      .catch((e: Error) => e);
    expect(err).toMatchObject({ code: "PB_ERR_PLUGIN_THREW" });
    expect((err as Error).message).not.toContain(SECRET);
    expect((err as Error).message).toContain("[REDACTED]");
    await host.mcp("echo").call("log", {});
    await host.mcp("echo").call("console", {});
    await sink.waitFor("leaking [REDACTED]");
    await sink.waitFor("console from plugin [REDACTED]");
    expect(sink.text()).not.toContain(SECRET);
  });

  it("accepts ctx.log in both (msg, data) and pino's (data, msg) order", async () => {
    await host.mcp("echo").call("log", {});
    await sink.waitFor("data-first log line");
    const line = sink.lines.map((l) => JSON.parse(l)).find((l) => l.msg === "data-first log line");
    expect(line).toMatchObject({ order: "pino", instance: "mcpConnectors/echo" });
  });

  it("binds the instance name to plugin log lines", async () => {
    // Three instances run fx-echo and start in parallel: each line must carry its own instance.
    const lines = sink.lines.map((l) => JSON.parse(l)).filter((l) => String(l.msg).startsWith("fx-echo created"));
    expect(lines.map((l) => l.instance).sort()).toEqual([
      "mcpConnectors/echo",
      "mcpConnectors/narrow",
      "mcpConnectors/none",
    ]);
    expect(lines.every((l) => l.plugin === "fx-echo")).toBe(true);
  });

  it("names unknown instances and lists the known ones", async () => {
    const err = await host
      .mcp("nope")
      .list_tools()
      .then(
        () => null,
        (e: Error & { data: Record<string, unknown> }) => e,
      );
    const known = ["mcpConnectors/echo", "mcpConnectors/narrow", "mcpConnectors/none"];
    expect(err).toMatchObject({ code: "PB_ERR_INSTANCE_NOT_FOUND", data: { instance: "mcpConnectors/nope", known } });
    expect(err!.message).toContain('"mcpConnectors/nope"');
    expect(err!.message).toContain(known.join(", "));
  });
});

describe("a secret-marked config field written literally in connectors.json", () => {
  it("is scrubbed even from what the plugin logs while it starts", async () => {
    const literal = "literal-secret-in-config-file";
    const sink2 = logSink();
    const { file } = writeConfig({ mcpConnectors: { lit: { plugin: "fx-echo", config: { token: literal } } } });
    const h = await createHost({ config: file, logDestination: sink2.stream, logLevel: "debug" });
    try {
      await h.mcp("lit").call("log", {});
      await sink2.waitFor("fx-echo created; token is [REDACTED]");
      expect(sink2.text()).not.toContain(literal);
      expect(JSON.stringify(h.report())).not.toContain(literal);
    } finally {
      await h.close();
    }
  });
});
