import { afterAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { MAX_GRANT_CALLS_IN_FLIGHT } from "../../src/host/start.js";
import { cleanupTempDirs, logSink, writeConfig, waitFor } from "../helpers.js";

const hosts: Host[] = [];
async function boot(
  instances: Record<string, unknown>,
  opts: { graceMs?: number; maxMemory?: number } = {},
): Promise<Host> {
  const { file } = writeConfig({ mcpConnectors: instances });
  const host = await createHost({ config: file, logLevel: "silent", graceMs: opts.graceMs ?? 300 });
  hosts.push(host);
  return host;
}
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  cleanupTempDirs();
});

describe("a misbehaving plugin never takes down the host or its neighbours", () => {
  it("times out at the deadline, aborts the plugin's signal, and keeps serving", async () => {
    const sink = logSink();
    const { file } = writeConfig({ mcpConnectors: { a: { plugin: "fx-echo", timeout_ms: 200 } } });
    const host = await createHost({ config: file, logLevel: "info", logDestination: sink.stream });
    hosts.push(host);
    await expect(host.mcp("a").call("slow", { ms: 5000 })).rejects.toMatchObject({
      code: "PB_ERR_CALL_TIMEOUT",
      data: { instance: "mcpConnectors/a" },
    });
    await expect(host.mcp("a").call("echo", { text: "still here" })).resolves.toMatchObject({ text: "still here" });
    // The plugin saw its ctx.signal abort (it logs when it does).
    expect(sink.text()).toContain("slow call aborted");
  });

  it("honours a per-call timeout override", async () => {
    const host = await boot({ a: { plugin: "fx-echo", timeout_ms: 10_000 } });
    await expect(
      host.call("mcpConnectors/a", "call", ["slow", { ms: 5000 }], { timeoutMs: 100 }),
    ).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
  });

  it("terminates and restarts a worker stuck in a busy loop", async () => {
    const host = await boot({ spin: { plugin: "fx-echo", timeout_ms: 200 }, other: { plugin: "fx-echo" } });
    await expect(host.mcp("spin").call("spin", {})).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
    // The neighbour answers while the busy worker spins.
    await expect(host.mcp("other").call("echo", { text: "free" })).resolves.toMatchObject({ text: "free" });
    // After the grace period the stuck worker is replaced and the instance answers again.
    await expect(waitFor(() => host.mcp("spin").call("echo", { text: "back" }))).resolves.toMatchObject({
      text: "back",
    });
  });

  it.each([
    ["a clean process.exit(0)", "exit"],
    ["process.exit(1)", "exit1"],
  ])("rejects pending calls at once when the worker dies by %s, then restarts it", async (_label, tool) => {
    const host = await boot({ x: { plugin: "fx-echo", timeout_ms: 20_000 }, y: { plugin: "fx-echo" } });
    const slow = host.mcp("x").call("slow", { ms: 10_000 });
    const dying = host.mcp("x").call(tool, {});
    await expect(dying).rejects.toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED", data: { instance: "mcpConnectors/x" } });
    await expect(slow).rejects.toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
    await expect(host.mcp("y").call("echo", { text: "ok" })).resolves.toMatchObject({ text: "ok" });
    await expect(waitFor(() => host.mcp("x").call("echo", { text: "again" }))).resolves.toMatchObject({
      text: "again",
    });
  });

  it("survives a throw outside any call", async () => {
    const host = await boot({ x: { plugin: "fx-echo" } });
    const pending = host.mcp("x").call("slow", { ms: 10_000 });
    await host.mcp("x").call("crash-later", {});
    await expect(pending).rejects.toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
    await expect(waitFor(() => host.mcp("x").call("echo", { text: "up" }))).resolves.toMatchObject({ text: "up" });
  });

  it("contains an out-of-memory worker and blames it by name", async () => {
    const host = await boot({
      hog: { plugin: "fx-echo", max_memory_mb: 32, timeout_ms: 20_000 },
      calm: { plugin: "fx-echo" },
    });
    const err = await host
      .mcp("hog")
      .call("oom", {})
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED", data: { instance: "mcpConnectors/hog" } });
    expect((err as Error).message).toContain("out of memory");
    await expect(host.mcp("calm").call("echo", { text: "fine" })).resolves.toMatchObject({ text: "fine" });
  });

  it("opens the circuit after repeated crashes", async () => {
    const host = await boot({ x: { plugin: "fx-echo" } });
    for (let i = 0; i < 3; i++) {
      await waitFor(() => host.mcp("x").call("echo", { text: "alive" }));
      await expect(host.mcp("x").call("exit", {})).rejects.toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
    }
    await expect(host.mcp("x").call("echo", { text: "x" })).rejects.toMatchObject({ code: "PB_ERR_CIRCUIT_OPEN" });
  });

  it("reports an instance whose circuit is open as failed, with the circuit as its reason", async () => {
    const host = await boot({ x: { plugin: "fx-echo" } });
    for (let i = 0; i < 3; i++) {
      await waitFor(() => host.mcp("x").call("echo", { text: "alive" }));
      await expect(host.mcp("x").call("exit", {})).rejects.toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
    }
    await expect(host.mcp("x").call("echo", { text: "x" })).rejects.toMatchObject({ code: "PB_ERR_CIRCUIT_OPEN" });
    // SPEC: "a crash loop opens a circuit and the instance reports `failed` until restarted".
    expect(host.report().instances[0]).toMatchObject({
      id: "mcpConnectors/x",
      state: "failed",
      error: { code: "PB_ERR_CIRCUIT_OPEN" },
    });
    expect(host.report().ok).toBe(false);
  });

  it("lets a plugin call only the instances it is granted", async () => {
    const { file } = writeConfig({
      mcpConnectors: {
        echo: { plugin: "fx-echo" },
        other: { plugin: "fx-echo" },
        caller: { plugin: "fx-caller", grants: ["mcpConnectors/echo"] },
      },
    });
    const host = await createHost({ config: file, logLevel: "silent" });
    hosts.push(host);
    await expect(host.mcp("caller").call("relay", { text: "via grant" })).resolves.toMatchObject({ text: "via grant" });
    await expect(host.mcp("caller").call("overreach", { text: "x" })).rejects.toMatchObject({
      code: "PB_ERR_GRANT_DENIED",
    });
  });

  it("a plugin making calls to its grants in a loop has at most 256 in flight: the rest are told to wait", async () => {
    const { file } = writeConfig({
      mcpConnectors: {
        echo: { plugin: "fx-echo" },
        caller: { plugin: "fx-caller", grants: ["mcpConnectors/echo"], timeout_ms: 30_000 },
      },
    });
    const host = await createHost({ config: file, logLevel: "silent" });
    hosts.push(host);
    // All 300 are made in one turn; each of the first 256 runs 500 ms, so none has ended when the 257th comes.
    await expect(host.mcp("caller").call("fan-out", { count: 300, ms: 500 })).resolves.toEqual({
      ok: MAX_GRANT_CALLS_IN_FLIGHT,
      PB_ERR_GRANT_BUSY: 300 - MAX_GRANT_CALLS_IN_FLIGHT,
    });
    // Each freed its place when it ended.
    await expect(host.mcp("caller").call("fan-out", { count: 200, ms: 10 })).resolves.toEqual({ ok: 200 });
  });
});
