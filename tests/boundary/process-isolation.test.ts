/**
 * "isolation": "process": the same boundary as a thread (calls, deadlines, cancellation, crash
 * handling, restart, env, secrets, logs), in a child process under Node's permission model.
 * The filesystem checks run the same fixture in a thread too, so they prove that the
 * permission model, not the fixture, is what refuses the read.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, logSink, waitFor, writeConfig } from "../helpers.js";

const SECRET = "pr0cess-s3cret-token";
const hosts: Host[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  cleanupTempDirs();
});

async function boot(
  instances: Record<string, unknown>,
  opts: { graceMs?: number; sink?: ReturnType<typeof logSink> } = {},
): Promise<{ host: Host; dir: string }> {
  const { file, dir } = writeConfig({ mcpConnectors: instances });
  const host = await createHost({
    config: file,
    graceMs: opts.graceMs ?? 300,
    env: { FX_TOKEN: SECRET, FX_ALLOWED: "yes", OTHER_SECRET: "not-for-plugins" },
    logLevel: opts.sink ? "debug" : "silent",
    logDestination: opts.sink?.stream,
  });
  hosts.push(host);
  return { host, dir };
}

/** Pids of this test process's children running the process-isolated worker entry. */
function isolatedChildren(): number[] {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" });
  } catch {
    // ps exits 1 when no process matches
  }
  return out
    .split("\n")
    .filter((l) => l.includes("process-entry.js"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

describe("a process-isolated instance behaves like a thread one", () => {
  const sink = logSink();
  let host: Host;
  beforeAll(async () => {
    ({ host } = await boot(
      {
        p: { plugin: "fx-echo", isolation: "process", config: { prefix: "> ", token: "${FX_TOKEN}" }, timeout_ms: 300 },
        echo: { plugin: "fx-echo", isolation: "process" },
        caller: { plugin: "fx-caller", isolation: "process", grants: ["mcpConnectors/echo"] },
      },
      { sink },
    ));
  });

  it("answers calls and says it is process-isolated in the boot report", async () => {
    await expect(host.mcp("p").call("echo", { text: "hi" })).resolves.toMatchObject({ text: "> hi" });
    await expect(host.mcp("p").list_tools()).resolves.toContainEqual({ name: "echo" });
    expect(host.report().instances.find((i) => i.id === "mcpConnectors/p")).toMatchObject({
      state: "ready",
      isolation: "process",
    });
  });

  it("gives the child only the environment its manifest names", async () => {
    await expect(host.mcp("p").call("env", {})).resolves.toEqual({ env: { FX_ALLOWED: "yes" } });
  });

  it("times out at the deadline and aborts the plugin's signal", async () => {
    await expect(host.mcp("p").call("slow", { ms: 5000 })).rejects.toMatchObject({
      code: "PB_ERR_CALL_TIMEOUT",
      data: { instance: "mcpConnectors/p" },
    });
    await expect(host.mcp("p").call("echo", { text: "still here" })).resolves.toMatchObject({ text: "> still here" });
    await sink.waitFor("slow call aborted");
  });

  it("relays a granted ctx.connectors call over IPC and refuses an ungranted one", async () => {
    await expect(host.mcp("caller").call("relay", { text: "via grant" })).resolves.toMatchObject({ text: "via grant" });
    await expect(host.mcp("caller").call("overreach", { text: "x" })).rejects.toMatchObject({
      code: "PB_ERR_GRANT_DENIED",
    });
  });

  it("scrubs secrets from what the child throws, logs and prints", async () => {
    const err = await host
      .mcp("p")
      .call("throw", {})
      .catch((e: Error) => e);
    expect(err).toMatchObject({ code: "PB_ERR_PLUGIN_THREW" });
    expect((err as Error).message).toContain("[REDACTED]");
    await host.mcp("p").call("log", {});
    await host.mcp("p").call("console", {});
    await sink.waitFor("leaking [REDACTED]");
    await sink.waitFor("console from plugin [REDACTED]");
    expect(sink.text()).not.toContain(SECRET);
  });

  it("reads an endless line the child writes to its descriptor in bounded pieces, and the host stays responsive", async () => {
    // 4 MB with no line end, past the child's logger: the host passes it on in capped log lines
    // as it arrives, rather than keeping it all (and splitting the whole of it again on every read)
    // until a line end that may never come.
    await expect(host.mcp("echo").call("flood", { bytes: 4 * 1024 * 1024 })).resolves.toEqual({ ok: true });
    await sink.waitFor('"msg":"ffff', 20_000);
    await host.mcp("echo").call("flood", { bytes: 0, after: "\nflood over\n" });
    await sink.waitFor('"msg":"flood over"');
    const flooded = sink.lines.filter((l) => l.includes('"msg":"ffff'));
    expect(flooded.length).toBeGreaterThan(0);
    for (const line of flooded) expect(line.length).toBeLessThan(16 * 1024);
    await expect(host.mcp("echo").call("echo", { text: "after" })).resolves.toMatchObject({ text: "after" });
  });

  it("refuses a result that cannot cross the boundary, as a thread does", async () => {
    const { file } = writeConfig({ memoryStores: { liar: { plugin: "fx-liar", isolation: "process" } } });
    const liarHost = await createHost({ config: file, logLevel: "silent" });
    hosts.push(liarHost);
    await expect(liarHost.memory("liar").query({ query: "function", limit: 2, mode: "fts" })).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
    });
    await expect(liarHost.memory("liar").query({ query: "fine", limit: 2, mode: "fts" })).resolves.toEqual([
      { id: "m1", summary: "memory 1" },
    ]);
  });
});

describe("the permission model limits what a process-isolated plugin can reach", () => {
  let host: Host;
  let dir: string;
  beforeAll(async () => {
    ({ host, dir } = await boot({ proc: { plugin: "fx-fs", isolation: "process" }, thread: { plugin: "fx-fs" } }));
    // Created only after the child started: a declared path need not exist at boot.
    mkdirSync(path.join(dir, "allowed"), { recursive: true });
    writeFileSync(path.join(dir, "allowed", "ok.txt"), "declared");
    writeFileSync(path.join(dir, "outside.txt"), "not declared");
  });
  const call = (name: string, tool: string, args: Record<string, unknown> = {}) => host.mcp(name).call(tool, args);

  it("refuses a read outside the allowed paths that the same plugin in a thread can make", async () => {
    const outside = path.join(dir, "outside.txt");
    await expect(call("thread", "read", { path: outside })).resolves.toEqual({ ok: true, value: "not declared" });
    await expect(call("proc", "read", { path: outside })).resolves.toMatchObject({
      ok: false,
      code: "ERR_ACCESS_DENIED",
    });
    if (existsSync("/etc/hostname")) {
      await expect(call("thread", "read", { path: "/etc/hostname" })).resolves.toEqual({
        ok: true,
        value: readFileSync("/etc/hostname", "utf8"),
      });
      await expect(call("proc", "read", { path: "/etc/hostname" })).resolves.toMatchObject({
        ok: false,
        code: "ERR_ACCESS_DENIED",
      });
    }
  });

  it("turns the permission model's bare refusal into PB_ERR_FS_NOT_GRANTED naming the path and plugin.json permissions.fs", async () => {
    const outside = path.join(dir, "outside.txt");
    const err = await call("proc", "read-throw", { path: outside }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "PB_ERR_FS_NOT_GRANTED", data: { path: outside, permission: "FileSystemRead" } });
    expect((err as Error).message).toContain(`may not read ${outside}`);
    expect((err as { hint: string }).hint).toContain("permissions");
    await expect(call("thread", "read-throw", { path: outside })).resolves.toBe("not declared");
  });

  it("allows reads and writes under the manifest's permissions.fs, resolved against connectors.json's folder", async () => {
    await expect(call("proc", "read", { path: path.join(dir, "allowed", "ok.txt") })).resolves.toEqual({
      ok: true,
      value: "declared",
    });
    await expect(
      call("proc", "write", { path: path.join(dir, "allowed", "new.txt"), text: "w" }),
    ).resolves.toMatchObject({ ok: true });
    expect(readFileSync(path.join(dir, "allowed", "new.txt"), "utf8")).toBe("w");
    await expect(call("proc", "write", { path: path.join(dir, "outside-new.txt"), text: "w" })).resolves.toMatchObject({
      ok: false,
      code: "ERR_ACCESS_DENIED",
    });
    expect(existsSync(path.join(dir, "outside-new.txt"))).toBe(false);
  });

  it("refuses child processes and worker threads (which the permission model would not follow)", async () => {
    await expect(call("proc", "spawn")).resolves.toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
    await expect(call("proc", "worker")).resolves.toMatchObject({ ok: false, code: "ERR_ACCESS_DENIED" });
    await expect(call("thread", "spawn")).resolves.toMatchObject({ ok: true });
  });
});

describe("a misbehaving process-isolated plugin is contained", () => {
  it.each([
    ["a clean process.exit(0)", "exit"],
    ["process.exit(1)", "exit1"],
  ])("rejects every pending call at once when the child dies by %s, then restarts it", async (_label, tool) => {
    const { host } = await boot({
      x: { plugin: "fx-echo", isolation: "process", timeout_ms: 20_000 },
      y: { plugin: "fx-echo", isolation: "process" },
    });
    const slow = [host.mcp("x").call("slow", { ms: 10_000 }), host.mcp("x").call("slow", { ms: 10_000 })];
    const dying = host.mcp("x").call(tool, {});
    await expect(dying).rejects.toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED", data: { instance: "mcpConnectors/x" } });
    for (const s of slow) await expect(s).rejects.toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
    await expect(host.mcp("y").call("echo", { text: "ok" })).resolves.toMatchObject({ text: "ok" });
    await expect(waitFor(() => host.mcp("x").call("echo", { text: "again" }))).resolves.toMatchObject({
      text: "again",
    });
  });

  it("kills and restarts a child stuck in a busy loop while its neighbour keeps answering", async () => {
    const { host } = await boot({
      spin: { plugin: "fx-echo", isolation: "process", timeout_ms: 200 },
      other: { plugin: "fx-echo", isolation: "process" },
    });
    await expect(host.mcp("spin").call("spin", {})).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
    await expect(host.mcp("other").call("echo", { text: "free" })).resolves.toMatchObject({ text: "free" });
    await expect(waitFor(() => host.mcp("spin").call("echo", { text: "back" }))).resolves.toMatchObject({
      text: "back",
    });
  });

  it("names an error thrown outside any call as the crash reason", async () => {
    const { host } = await boot({ x: { plugin: "fx-echo", isolation: "process" } });
    const pending = host.mcp("x").call("slow", { ms: 10_000 });
    await host.mcp("x").call("crash-later", {});
    const err = await pending.catch((e: Error) => e);
    expect(err).toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
    expect((err as Error).message).toContain("thrown outside any call");
    await expect(waitFor(() => host.mcp("x").call("echo", { text: "up" }))).resolves.toMatchObject({ text: "up" });
  });

  it("contains an out-of-memory child and says so", async () => {
    const { host } = await boot({
      hog: { plugin: "fx-echo", isolation: "process", max_memory_mb: 32, timeout_ms: 20_000 },
      calm: { plugin: "fx-echo", isolation: "process" },
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
    const { host } = await boot({ x: { plugin: "fx-echo", isolation: "process" } });
    for (let i = 0; i < 3; i++) {
      await waitFor(() => host.mcp("x").call("echo", { text: "alive" }));
      await expect(host.mcp("x").call("exit", {})).rejects.toMatchObject({ code: "PB_ERR_PLUGIN_CRASHED" });
    }
    await expect(host.mcp("x").call("echo", { text: "x" })).rejects.toMatchObject({ code: "PB_ERR_CIRCUIT_OPEN" });
  });

  it("closes gracefully and leaves no child behind", async () => {
    const others = new Set(isolatedChildren());
    const { host } = await boot({
      a: { plugin: "fx-echo", isolation: "process" },
      b: { plugin: "fx-echo", isolation: "process" },
    });
    await host.mcp("a").call("echo", { text: "x" });
    const before = isolatedChildren().filter((pid) => !others.has(pid));
    expect(before).toHaveLength(2);
    await host.close();
    await waitFor(async () => {
      const alive = isolatedChildren().filter((pid) => before.includes(pid));
      if (alive.length > 0) throw new Error(`still running: ${alive.join(", ")}`);
    });
    await expect(host.mcp("a").call("echo", { text: "x" })).rejects.toMatchObject({ code: "PB_ERR_HOST_CLOSED" });
  });
});

describe("permissions.fs naming a config field", () => {
  it("grants a process-isolated fs-skill-store the folder its config names", async () => {
    const { dir, file } = writeConfig({
      plugins: ["./none"],
      skillStores: { primary: { plugin: "fs-skill-store", isolation: "process", config: { dir: "skills" } } },
    });
    const host = await createHost({ config: file, logLevel: "silent" });
    try {
      await host.skills("primary").write("hello", "# hi");
      await expect(host.skills("primary").get("hello")).resolves.toMatchObject({ body: "# hi" });
      expect(readFileSync(path.join(dir, "skills", "hello.md"), "utf8")).toBe("# hi");
    } finally {
      await host.close();
    }
  });
});
