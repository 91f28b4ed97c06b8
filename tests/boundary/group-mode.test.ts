/**
 * Group mode (`"worker": "<group>"`): instances share one thread, yet each keeps its own
 * deadlines, cancellation, allowed_tools, identity, config and secrets; a crash fails every
 * pending call of the group, names the culprit where the thread knew it, and the group restarts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, logSink, until, waitFor, writeConfig } from "../helpers.js";

const hosts: Host[] = [];
async function boot(
  instances: Record<string, unknown>,
  logDestination?: ReturnType<typeof logSink>["stream"],
): Promise<Host> {
  const { file } = writeConfig({ mcpConnectors: instances });
  const host = await createHost({
    config: file,
    logLevel: logDestination ? "info" : "silent",
    logDestination,
    graceMs: 300,
    env: { FX_ALLOWED: "yes", SECRET_A: "tok-aaa-111", SECRET_B: "tok-bbb-222" },
  });
  hosts.push(host);
  return host;
}
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  cleanupTempDirs();
});

describe("group mode", () => {
  it("runs grouped instances in one thread, each with its own config, allowed_tools and identity", async () => {
    const host = await boot({
      a: {
        plugin: "fx-echo",
        worker: "g",
        config: { prefix: "A:", token: "${SECRET_A}" },
        allowed_tools: ["echo", "config", "env"],
        identity: { who: "a" },
      },
      b: { plugin: "fx-echo", worker: "g", config: { prefix: "B:", token: "${SECRET_B}" }, allowed_tools: ["echo"] },
    });
    await expect(host.mcp("a").call("echo", { text: "x" })).resolves.toMatchObject({
      text: "A:x",
      overrides: { who: "a" },
    });
    await expect(host.mcp("b").call("echo", { text: "x" })).resolves.toMatchObject({ text: "B:x", overrides: null });
    // Each instance's create() got only its own config.
    const cfgA = await host.mcp("a").call("config", {});
    expect(JSON.stringify(cfgA)).toContain("A:");
    expect(JSON.stringify(cfgA)).not.toContain("tok-bbb-222");
    await expect(host.mcp("b").call("config", {})).rejects.toMatchObject({ code: "PB_ERR_TOOL_DENIED" });
    // One thread: both see the same process (the documented trade-off), with only permitted env.
    const env = (await host.mcp("a").call("env", {})) as { env: Record<string, string> };
    expect(env.env).toEqual({ FX_ALLOWED: "yes" });
  });

  it("sends each member's console and raw stdout writes to that member's own log", async () => {
    const sink = logSink();
    const host = await boot(
      {
        a: { plugin: "fx-echo", worker: "g", config: { prefix: "A:" } },
        b: { plugin: "fx-echo", worker: "g", config: { prefix: "B:" } },
      },
      sink.stream,
    );
    await host.mcp("a").call("stdout", {});
    await host.mcp("b").call("stdout", {});
    await host.mcp("a").call("stdout", {});
    const owners = (text: string) => sink.lines.filter((l) => l.includes(text)).map((l) => JSON.parse(l).instance);
    await until(
      () => owners("raw stdout from A:").length === 2 && owners("raw stdout from B:").length === 1,
      10_000,
      "three raw stdout lines",
    );
    expect(owners("raw stdout from A:")).toEqual(["mcpConnectors/a", "mcpConnectors/a"]);
    expect(owners("raw stdout from B:")).toEqual(["mcpConnectors/b"]);
  });

  it("keeps deadlines and cancellation per instance", async () => {
    const sink = logSink();
    const host = await boot(
      {
        slow: { plugin: "fx-echo", worker: "g", timeout_ms: 200 },
        fast: { plugin: "fx-echo", worker: "g", timeout_ms: 20_000 },
      },
      sink.stream,
    );
    const neighbour = host.mcp("fast").call("slow", { ms: 400 });
    await expect(host.mcp("slow").call("slow", { ms: 5_000 })).rejects.toMatchObject({
      code: "PB_ERR_CALL_TIMEOUT",
      data: { instance: "mcpConnectors/slow" },
    });
    // The neighbour's longer deadline is its own: its call finishes.
    await expect(neighbour).resolves.toEqual({ slept: 400 });
    expect(sink.lines.filter((l) => l.includes("slow call aborted")).map((l) => JSON.parse(l).instance)).toEqual([
      "mcpConnectors/slow",
    ]);
  });

  it("fails every pending call of the group on a crash, names the culprit, and restarts the group", async () => {
    const host = await boot({
      bad: { plugin: "fx-echo", worker: "g", timeout_ms: 20_000 },
      good: { plugin: "fx-echo", worker: "g", timeout_ms: 20_000 },
      alone: { plugin: "fx-echo" },
    });
    const pendingGood = host.mcp("good").call("slow", { ms: 10_000 });
    const pendingBad = host.mcp("bad").call("slow", { ms: 10_000 });
    await host.mcp("bad").call("crash-later", {});
    for (const err of await Promise.all([pendingGood, pendingBad].map((p) => p.catch((e: unknown) => e)))) {
      expect(err).toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
      expect((err as Error).message).toContain("culprit: mcpConnectors/bad");
      expect((err as Error).message).toContain("thrown outside any call");
    }
    // An instance outside the group never noticed.
    await expect(host.mcp("alone").call("echo", { text: "calm" })).resolves.toMatchObject({ text: "calm" });
    await expect(waitFor(() => host.mcp("good").call("echo", { text: "back" }))).resolves.toMatchObject({
      text: "back",
    });
    await expect(waitFor(() => host.mcp("bad").call("echo", { text: "back" }))).resolves.toMatchObject({
      text: "back",
    });
  });

  it("refuses a group for a process-isolated instance, naming the field", async () => {
    const { file } = writeConfig({ mcpConnectors: { p: { plugin: "fx-echo", worker: "g", isolation: "process" } } });
    await expect(createHost({ config: file, logLevel: "silent" })).rejects.toMatchObject({
      // A problem inside one instance blocks that instance, so the boot lists it as its failure.
      code: "PB_ERR_BOOT_FAILED",
      data: {
        failures: [
          expect.objectContaining({
            code: "PB_ERR_CONFIG_INVALID",
            message: expect.stringContaining("/mcpConnectors/p/worker"),
          }),
        ],
      },
    });
  });

  it("boots 500 instances in one group and every one answers", async () => {
    const instances = Object.fromEntries(
      Array.from({ length: 500 }, (_, i) => [
        `i${i}`,
        { plugin: "fx-echo", worker: "many", config: { prefix: `${i}:` } },
      ]),
    );
    const host = await boot(instances);
    expect(host.report().ok).toBe(true);
    const answers = await Promise.all(
      Array.from({ length: 500 }, (_, i) => host.mcp(`i${i}`).call("echo", { text: "hi" })),
    );
    expect(answers.map((a) => (a as { text: string }).text)).toEqual(Array.from({ length: 500 }, (_, i) => `${i}:hi`));
  });
});
