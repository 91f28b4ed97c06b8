/**
 * The fault-and-attack suite: one test per attack of a hostile plugin
 * (tests/fixtures/plugins/fx-hostile), run in every isolation mode where it applies, next to a
 * neighbour that holds a secret. Each test asserts the outcome written down for its mode
 * (blocked, contained, or documented as out of reach for threads) and records it; the suite
 * prints the attack × mode table that docs/reliability.md carries.
 * Sandbox runs need PATCHBAY_BWRAP (.ci/bubblewrap.sh) and skip with the reason otherwise.
 */
import { mkdirSync, cpSync, symlinkSync } from "node:fs";
import net from "node:net";
import inspector from "node:inspector";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { sandboxProblem } from "../../src/spawn/sandbox-runtime.js";
import { MALFORMED_LIMIT } from "../../src/spawn/instance-worker.js";
import { Gateway } from "../../src/gateway/gateway.js";
import { LOG_LINES_PER_WINDOW } from "../../src/spawn/log-limit.js";
import { cleanupTempDirs, FIXTURE_PLUGINS, logSink, runCli, tempDir, waitFor, writeConfig } from "../helpers.js";

const NEIGHBOUR_SECRET = "n3ighbour-s3cret-value";
type Mode = "thread" | "process" | "sandbox";
const sandboxSkip = process.env.PATCHBAY_BWRAP
  ? sandboxProblem(process.env.PATCHBAY_BWRAP)
  : "PATCHBAY_BWRAP is not set (run .ci/bubblewrap.sh)";
if (sandboxSkip) console.log(`attacks.test.ts: sandbox mode skipped: ${sandboxSkip}`);
const MODES: Mode[] = sandboxSkip ? ["thread", "process"] : ["thread", "process", "sandbox"];

const table = new Map<string, Partial<Record<Mode, string>>>();
function record(attack: string, mode: Mode, outcome: string): void {
  table.set(attack, { ...table.get(attack), [mode]: outcome });
}

const hosts: Host[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  cleanupTempDirs();
  const modes: Mode[] = ["thread", "process", "sandbox"];
  const rows = [
    ["attack", ...modes],
    ...[...table].map(([attack, by]) => [
      attack,
      ...modes.map((m) => by[m] ?? (m === "sandbox" && sandboxSkip ? "skipped" : "n/a")),
    ]),
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  console.log(
    [
      "",
      "attack × mode → outcome",
      ...rows.map((r) => "| " + r.map((cell, c) => cell.padEnd(widths[c])).join(" | ") + " |"),
    ].join("\n"),
  );
});

async function boot(
  mode: Mode,
  sink: ReturnType<typeof logSink>,
  hostile: Record<string, unknown> = {},
  pluginsDir?: string,
): Promise<Host> {
  const { file } = writeConfig({
    ...(pluginsDir ? { plugins: [pluginsDir, FIXTURE_PLUGINS] } : {}),
    mcpConnectors: {
      // No attack here is stopped by this bound (it only turns a hang into a failure); 5 s was too
      // short for a 20,000-line flood or a restart on a loaded machine.
      h: { plugin: "fx-hostile", isolation: mode, timeout_ms: 60_000, ...hostile },
      n: { plugin: "fx-echo", config: { token: "${FX_TOKEN}" } },
    },
  });
  const host = await createHost({
    config: file,
    graceMs: 300,
    env: { FX_TOKEN: NEIGHBOUR_SECRET, FX_GRANTED: "granted" },
    logLevel: "debug",
    logDestination: sink.stream,
  });
  hosts.push(host);
  return host;
}

const MALFORMED = [
  null,
  42,
  [],
  {},
  { t: "zzz" },
  { t: "log", level: "nope", msg: "x" },
  { t: "log", level: "info", msg: 5 },
  { t: "secrets", secrets: null },
  { t: "ready", secrets: 5, methods: [] },
  { t: "result", id: 424242, ok: false, error: null },
  { t: "init-failed", error: null, secrets: [] },
  { t: "grant-call" },
];

describe.each(MODES)("a hostile plugin in %s mode", (mode) => {
  const sink = logSink();
  let host: Host;
  beforeAll(async () => {
    host = await boot(mode, sink);
  });

  it("cannot kill the host with malformed messages: each is dropped and logged, then the worker is restarted as misbehaving", async () => {
    const few = MALFORMED.slice(0, 3);
    await expect(host.mcp("h").call("malformed", { messages: few })).resolves.toEqual({ sent: few.length });
    expect(
      sink.lines.filter((l) => l.includes("dropped a malformed message") && l.includes("mcpConnectors/h")),
    ).toHaveLength(few.length);
    const err = await host
      .mcp("h")
      .call("malformed", { messages: MALFORMED })
      .catch((e: Error) => e);
    expect(err).toMatchObject({ code: "PB_ERR_PLUGIN_MISBEHAVING", data: { instance: "mcpConnectors/h" } });
    await expect(host.mcp("n").call("echo", { text: "neighbour" })).resolves.toMatchObject({ text: "neighbour" });
    await expect(host.mcp("h").call("pid", {})).resolves.toHaveProperty("pid");
    record(`${MALFORMED.length} malformed messages`, mode, `contained: dropped, restarted after ${MALFORMED_LIMIT}`);
  });

  it("cannot crash the host or fill its memory with forged frames on its channel: the child is ended and restarted", async () => {
    if (mode === "thread") {
      // A thread's channel is a MessagePort: it carries structured clones, never raw bytes.
      await expect(host.mcp("h").call("ipc-forge", { hex: "00" })).resolves.toEqual({ written: false });
      return record("forged channel frames", mode, "n/a: a MessagePort carries no raw bytes");
    }
    const forged: Record<string, string> = {
      // Through Node's IPC channel these twelve bytes threw in the host's event loop and ended it.
      "a length with its top bit set": `f0000000${"ff".repeat(8)}`,
      "a length over 64 MiB, the rest never sent": "04000001",
      "a body that is not structured-clone data": "00000004ffffffff",
      "an empty frame": "00000000",
    };
    for (const [what, hex] of Object.entries(forged)) {
      // A host each: three crashes in a row open the instance's circuit, as they should.
      const own = await boot(mode, logSink());
      const err = await own
        .mcp("h")
        .call("ipc-forge", { hex })
        .catch((e: Error) => e);
      expect(err, what).toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
      expect((err as Error).message, what).toContain("it broke its channel to the host: it sent a");
      await expect(own.mcp("n").call("echo", { text: "neighbour" })).resolves.toMatchObject({ text: "neighbour" });
      await expect(own.mcp("h").call("pid", {}), what).resolves.toHaveProperty("pid");
    }
    record("forged channel frames", mode, "contained: child ended and restarted, reason named");
  });

  it("cannot make the gateway read its lists in a loop: 100,000 list-changed messages cost a read a second", async () => {
    const gateway = new Gateway(host, { expose: {}, logger: host.logger, stateDir: null });
    await gateway.start();
    try {
      const { listed: before } = (await host.mcp("h").call("listed", {})) as { listed: number };
      const started = Date.now();
      await expect(host.mcp("h").call("list-changed-flood", { count: 100_000 })).resolves.toMatchObject({
        sent: 100_000,
      });
      // The first re-read comes after a short settle; the flood is one announcement to it.
      const listedNow = async () => ((await host.mcp("h").call("listed", {})) as { listed: number }).listed;
      for (let i = 0; i < 200 && (await listedNow()) === before; i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 1_500));
      const listed = await listedNow();
      expect(listed).toBeGreaterThan(before);
      const seconds = (Date.now() - started) / 1000;
      expect(listed - before).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
      await expect(host.mcp("n").call("echo", { text: "neighbour" })).resolves.toMatchObject({ text: "neighbour" });
      record(
        "100,000 list-changed messages",
        mode,
        `contained: ${listed - before} re-reads in ${seconds.toFixed(1)} s`,
      );
    } finally {
      await gateway.close();
    }
  });

  it("cannot flood its caller with progress: 100,000 reports reach it at most one per 50 ms, the last before the answer", async () => {
    const seen: { progress: number; at: number }[] = [];
    await expect(
      host.call("mcpConnectors/h", "call", ["progress-flood", { count: 100_000 }], {
        onProgress: (u: { progress: number }) => seen.push({ progress: u.progress, at: Date.now() }),
      }),
    ).resolves.toEqual({ sent: 100_000 });
    expect(seen[0].progress).toBe(1);
    expect(seen.at(-1)!.progress).toBe(100_000);
    // Paced: each update (but the last, delivered with the answer) at least 50 ms after the one
    // before; a little slack for the clock's rounding. Timers only ever fire late, never early.
    const gaps = seen.slice(1, -1).map((u, i) => u.at - seen[i].at);
    expect(gaps.filter((g) => g < 45)).toEqual([]);
    expect(seen.length).toBeLessThan(100);
    record("100,000 progress reports in one call", mode, "contained: ≤ 1 update per 50 ms, the last before the answer");
  });

  it("cannot steer the scrubber: defaults and forged secrets are ignored, codes and names stay readable", async () => {
    await host
      .mcp("h")
      .call("forge-secrets", { secrets: ["mcpConnectors/h", "fx-hostile", "unknown attack", "neighbour"] });
    const err = await host
      .mcp("h")
      .call("no-such-attack", {})
      .catch((e: Error) => e);
    expect(err).toMatchObject({ code: "PB_ERR_PLUGIN_THREW" });
    expect((err as Error).message).toBe("mcpConnectors/h.call() threw: unknown attack no-such-attack");
    expect(host.scrubber.scrub("PB_ERR_CONFIG_INVALID at mcpConnectors/n")).toBe(
      "PB_ERR_CONFIG_INVALID at mcpConnectors/n",
    );
    expect(host.scrubber.scrub(`token ${NEIGHBOUR_SECRET}`)).toBe("token [REDACTED]");
    record("poisoned/forged secrets", mode, "blocked");
  });

  it("cannot write raw output past the log: stdout and stderr become the instance's log lines", async () => {
    await host.mcp("h").call("raw-output", { text: "marker-7f3" });
    // A child's stderr arrives on its pipe, after the result on the IPC channel: wait for the line.
    const line = await waitFor(async () => {
      const found = sink.lines.find((l) => l.includes("raw stderr marker-7f3"));
      if (!found) throw new Error("not logged yet");
      return found;
    });
    expect(JSON.parse(line)).toMatchObject({ instance: "mcpConnectors/h", plugin: "fx-hostile" });
    record("raw stdout/stderr writes", mode, "contained: logged, scrubbed");
  });

  it("cannot open the host's inspector with SIGUSR1", async () => {
    const sent = await host.mcp("h").call("sigusr1", {});
    // A signal is delivered before kill() returns; a round trip to the neighbour lets the host's loop run its handler.
    await host.mcp("n").call("echo", { text: "after" });
    const opened = inspector.url();
    if (opened) inspector.close();
    expect(opened).toBeUndefined();
    record(
      "SIGUSR1 → host inspector",
      mode,
      mode === "sandbox"
        ? `blocked (${(sent as { error?: string }).error ?? "signal sent inside the sandbox"})`
        : "blocked (host handles SIGUSR1)",
    );
  });

  it("sees only the environment its manifest grants", async () => {
    const { env } = (await host.mcp("h").call("env", {})) as { env: Record<string, string> };
    delete env.PWD; // bwrap --chdir sets PWD to the plugin folder
    expect(env).toEqual({ FX_GRANTED: "granted" });
    record("process.env holds other secrets", mode, "blocked (only permissions.env)");
  });

  it("floods the log: lines past the cap are dropped and counted, the host keeps answering", async () => {
    const before = sink.lines.length;
    await host.mcp("h").call("flood", { lines: 20_000 });
    await host.mcp("n").call("echo", { text: "still answering" });
    const kept = sink.lines.slice(before).filter((l) => l.includes("flood line")).length;
    expect(kept).toBeLessThanOrEqual(2 * LOG_LINES_PER_WINDOW);
    expect(sink.lines.slice(before).some((l) => l.includes("dropping log lines"))).toBe(true);
    record("20,000-line log flood", mode, `contained: ${kept} kept, rest dropped`);
  });

  it("cannot change a result after the host checked it (shared memory)", async () => {
    const res = await host
      .mcp("h")
      .call("shared", {})
      .then(
        (v) => v as { bytes: Uint8Array },
        (e: Error & { code?: string }) => e,
      );
    if (res instanceof Error) {
      // A child's IPC channel cannot carry a SharedArrayBuffer at all.
      expect(res).toMatchObject({ code: "PB_ERR_CONTRACT_VIOLATION" });
      record("mutate result via SharedArrayBuffer", mode, "blocked (cannot be sent)");
      return;
    }
    await host.mcp("h").call("mutate-shared", {});
    expect([...res.bytes]).toEqual([1, 2, 3, 4]);
    expect(res.bytes.buffer).not.toBeInstanceOf(SharedArrayBuffer);
    record("mutate result via SharedArrayBuffer", mode, "blocked (copied out)");
  });

  it("gets its own codes for a BigInt result and a cyclic tool schema, never PB_ERR_INTERNAL", async () => {
    await expect(host.mcp("h").call("bigint", {})).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_BIGINT",
      message: expect.stringContaining("/big"),
    });
    const cyclic = await boot(mode, logSink(), { config: { cyclic_tools: true } });
    await expect(cyclic.mcp("h").list_tools()).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_CYCLIC",
      message: expect.stringContaining("/0/inputSchema/properties/self"),
    });
    record("BigInt result / cyclic tool schema", mode, "contained: coded errors");
  });

  it("reaches the network as its mode allows", async () => {
    const server = net.createServer((s) => s.destroy()).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const port = (server.address() as net.AddressInfo).port;
    const res = (await host.mcp("h").call("connect", { port })) as { connected: boolean; error?: string };
    server.close();
    if (mode === "sandbox") {
      expect(res.connected).toBe(false);
      record("connect to host's 127.0.0.1", mode, `blocked (${res.error})`);
    } else {
      expect(res.connected).toBe(true);
      record("connect to host's 127.0.0.1", mode, "not blocked (documented)");
    }
  });
});

describe("thread mode: what a thread cannot be protected from (documented in docs/isolation.md)", () => {
  const sink = logSink();
  it("can run code in the host through the inspector", async () => {
    const host = await boot("thread", sink);
    const res = await host.mcp("h").call("inspector", {});
    expect(res).toEqual({ evaluated: 2 });
    record("inspector.connectToMainThread()", "thread", "out of reach (documented)");
    record("inspector.connectToMainThread()", "process", "n/a (own process)");
    if (!sandboxSkip) record("inspector.connectToMainThread()", "sandbox", "n/a (own process)");
  });
});

describe.each(MODES)("the host's environment block, through the CLI, in %s mode", (mode) => {
  it(mode === "thread" ? "is readable from a thread (documented)" : "is not readable from a child", async () => {
    const { file, dir } = writeConfig({ mcpConnectors: { h: { plugin: "fx-hostile", isolation: mode } } });
    const r = await runCli(
      ["call", "--config", file, "mcpConnectors/h", "call", '"read"', '{"path":"PARENT_ENVIRON"}'],
      { cwd: dir, env: { HOST_ONLY_SECRET: NEIGHBOUR_SECRET } },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as { text?: string; error?: string };
    if (mode === "thread") {
      expect(res.text).toContain(NEIGHBOUR_SECRET);
      record("read host's /proc environ", mode, "out of reach (documented)");
    } else {
      expect(res.text).toBeUndefined();
      record("read host's /proc environ", mode, `blocked (${res.error})`);
    }
  });
});

describe("a symlink out of a plugin folder", () => {
  it("is refused at discovery, naming the link", async () => {
    const plugins = tempDir();
    const folder = path.join(plugins, "fx-hostile");
    mkdirSync(folder);
    cpSync(path.join(FIXTURE_PLUGINS, "fx-hostile"), folder, { recursive: true });
    symlinkSync("/", path.join(folder, "shipped"));
    const { file } = writeConfig({
      plugins: [plugins],
      mcpConnectors: { h: { plugin: "fx-hostile", isolation: "process" } },
    });
    const err = await createHost({ config: file, logLevel: "silent" }).catch((e: Error) => e);
    expect(err).toMatchObject({ code: "PB_ERR_BOOT_FAILED" });
    const data = JSON.stringify((err as unknown as { data: unknown }).data);
    expect(data).toContain("PB_ERR_PLUGIN_SYMLINK_ESCAPE");
    expect(data).toContain(path.join(folder, "shipped"));
    for (const m of ["thread", "process", "sandbox"] as Mode[])
      record("symlink out of plugin folder", m, "blocked (discovery)");
  });
});
