/**
 * A stdio server started ahead of its instance (src/spawn/prespawn.ts): read from catalog.json only
 * under its key, adopted by mcp-remote only when it is exactly what it would spawn, killed in every
 * other case (another command, no instance taking the thread), and recorded only for the bundled
 * mcp-remote without an environment of its own (its values are secrets). Real threads, a real host.
 */
import { existsSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { InstanceTask, PrespawnOrder, PrespawnSpec } from "../../src/contract/rpc.js";
import { createHost } from "../../src/index.js";
import { prespawnMac, prespawnOrders, savedPrespawns } from "../../src/gateway/stdio-prespawn.js";
import { prespawnSpecOf } from "../../src/spawn/prespawn.js";
import { prestartThreads, releaseWarmThreads } from "../../src/spawn/warm-threads.js";
import { BIN, cleanupTempDirs, ROOT, tempDir, until } from "../helpers.js";
import { startHttpServe } from "../gateway/_gateway.js";

afterAll(cleanupTempDirs);

const server = path.join(ROOT, "tests", "fixtures", "mcp", "demo-pid.mjs");
const key = Buffer.alloc(32, 7);
const spec: PrespawnSpec = { instance: "mcpConnectors/a", command: "node", args: ["s.mjs"], cwd: "/w", env: ["PATH"] };

const pids = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
/** Running, and not a zombie (a server killed after its thread ended is reaped by no one here). */
const alive = (pid: number) => {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

/**
 * A saved spawn unlike the instance's (re-signed, as only the key allows): a shell that writes its
 * pid to `file` at once and then waits. The instance kills it as soon as its mcp-remote looks, which
 * under load can come before a Node server has run a line; a shell has written its pid by then.
 */
const unlikeSpec = (saved: PrespawnSpec, file: string): PrespawnSpec => ({
  ...saved,
  command: "sh",
  args: ["-c", 'echo $$ >> "$0"; exec sleep 60', file],
});

describe("prespawn orders from catalog.json", () => {
  it("are read only when their code holds under the key and the stamp", () => {
    const saved = savedPrespawns(key, "stamp", [spec]);
    expect(prespawnOrders(saved, key, "stamp", { PATH: "/bin", SECRET: "x" })).toEqual([
      { instance: spec.instance, command: "node", args: ["s.mjs"], cwd: "/w", env: { PATH: "/bin" } },
    ]);
    expect(prespawnOrders(saved, key, "another stamp", {})).toEqual([]);
    expect(prespawnOrders(saved, Buffer.alloc(32, 8), "stamp", {})).toEqual([]);
    // Whoever can write catalog.json but not read catalog.key cannot make this host run anything.
    const forged = { ...saved, specs: [{ ...spec, command: "/bin/sh", args: ["-c", "touch /tmp/pwned"] }] };
    expect(prespawnOrders(forged, key, "stamp", {})).toEqual([]);
    for (const bad of [null, 1, "x", { specs: "x", mac: "y" }, { specs: [{ ...spec, args: [1] }] }, { specs: [spec] }])
      expect(prespawnOrders(bad, key, "stamp", {})).toEqual([]);
    const odd = [{ ...spec, env: [1] }] as unknown as PrespawnSpec[];
    expect(prespawnOrders({ specs: odd, mac: prespawnMac(key, "stamp", odd) }, key, "stamp", {})).toEqual([]);
    expect(savedPrespawns(key, "stamp", [])).toBeUndefined();
  });

  it("are recorded for the bundled mcp-remote with a command and no env of its own, and nothing else", () => {
    const task = (over: Partial<InstanceTask>, config: Record<string, unknown>) =>
      ({
        instance: "mcpConnectors/a",
        pluginName: "mcp-remote",
        pluginDir: path.join(ROOT, "plugins", "mcp-remote"),
        configDir: "/cfg",
        config,
        ...over,
      }) as InstanceTask;
    const env = { PATH: "/bin", HOME: "/h", SHELL: "() { evil; }", OTHER: "x" };
    expect(prespawnSpecOf(task({}, { command: "node", args: ["a"], cwd: "sub" }), env)).toEqual({
      instance: "mcpConnectors/a",
      command: "node",
      args: ["a"],
      cwd: path.resolve("/cfg", "sub"),
      env: ["HOME", "PATH"],
    });
    expect(prespawnSpecOf(task({}, { command: "node" }), env)?.cwd).toBe(path.resolve("/cfg"));
    expect(prespawnSpecOf(task({}, { command: "node", env: { TOKEN: "secret" } }), env)).toBeNull();
    expect(prespawnSpecOf(task({}, { url: "https://x.test/mcp" }), env)).toBeNull();
    expect(prespawnSpecOf(task({ pluginDir: "/elsewhere/mcp-remote" }, { command: "node" }), env)).toBeNull();
    expect(prespawnSpecOf(task({ pluginName: "other" }, { command: "node" }), env)).toBeNull();
    expect(prespawnSpecOf(task({}, { command: "node", args: [1] }), env)).toBeNull();
  });
});

describe("a server started ahead of its instance", () => {
  const hostEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };

  async function boot(dir: string, pidFile: string) {
    return createHost({
      config: {
        plugins: [],
        mcpConnectors: { a: { plugin: "mcp-remote", config: { command: "node", args: [server, pidFile] } } },
      },
      dir,
      env: hostEnv,
      logLevel: "silent",
    });
  }
  const order = (dir: string, args: string[]): PrespawnOrder => ({
    instance: "mcpConnectors/a",
    command: "node",
    args,
    cwd: dir,
    env: hostEnv,
  });

  it("is adopted by mcp-remote when it is exactly what it would spawn", async () => {
    const dir = tempDir("pb-prespawn-");
    const pidFile = path.join(dir, "pids");
    prestartThreads(1, [order(dir, [server, pidFile])]);
    await until(() => pids(pidFile).length === 1, 30_000, "the server started ahead");
    const host = await boot(dir, pidFile);
    try {
      expect(await host.mcp("a").call("echo", { text: "hi" })).toMatchObject({ content: [{ text: "hi" }] });
      expect(pids(pidFile)).toHaveLength(1); // the instance spawned nothing of its own
      expect(alive(pids(pidFile)[0])).toBe(true);
      // Spawned by this thread on FIFOs its instance's thread took (spawn/held-server.ts).
      expect(readlinkSync(`/proc/${pids(pidFile)[0]}/fd/0`)).toMatch(/patchbay-stdio-/);
    } finally {
      await host.close();
    }
    await until(() => !alive(pids(pidFile)[0]), 10_000, "the adopted server to stop with its instance");
  });

  it("is killed unused when the instance would spawn anything else", async () => {
    const dir = tempDir("pb-prespawn-");
    const pidFile = path.join(dir, "pids");
    prestartThreads(1, [order(dir, [server, pidFile, "--another-argument"])]);
    await until(() => pids(pidFile).length === 1, 30_000, "the server started ahead");
    const host = await boot(dir, pidFile);
    try {
      expect(await host.mcp("a").call("echo", { text: "hi" })).toMatchObject({ content: [{ text: "hi" }] });
      const [ahead, own] = pids(pidFile);
      expect(own).toBeDefined();
      await until(() => !alive(ahead), 10_000, "the server started ahead to be killed");
      expect(alive(own)).toBe(true);
    } finally {
      await host.close();
    }
  });

  it("is killed when no instance takes its thread", async () => {
    const dir = tempDir("pb-prespawn-");
    const pidFile = path.join(dir, "pids");
    prestartThreads(1, [{ ...order(dir, [server, pidFile]), instance: "mcpConnectors/gone" }]);
    await until(() => pids(pidFile).length === 1, 30_000, "the server started ahead");
    // Let the warm task report the pid (it resolves after the runtime has loaded).
    await new Promise((r) => setTimeout(r, 1000));
    await releaseWarmThreads();
    await until(() => !alive(pids(pidFile)[0]), 10_000, "the unused server to be killed");
  });
});

describe("serve --mcp", () => {
  it("starts the server its last boot's mcp-remote spawned, and the instance adopts it", async () => {
    const dir = tempDir("pb-prespawn-serve-");
    const pidFile = path.join(dir, "pids");
    const config = path.join(dir, "connectors.json");
    writeFileSync(
      config,
      JSON.stringify({
        plugins: [],
        mcpConnectors: { a: { plugin: "mcp-remote", config: { command: "node", args: [server, pidFile] } } },
      }),
    );
    const start = async () => {
      const client = new Client({ name: "t", version: "1" });
      const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, "serve", "--mcp", "--config", config],
          env,
          stderr: "ignore",
        }),
      );
      try {
        for (;;) {
          const r = await client.callTool({ name: "a__echo", arguments: { text: "hi" } });
          if (!r.isError) return r;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await client.close();
      }
    };
    await start();
    await until(
      () => pids(pidFile).length === 1 && !alive(pids(pidFile)[0]),
      10_000,
      "the first start's server to stop",
    );
    const saved = JSON.parse(readFileSync(path.join(dir, ".patchbay", "catalog.json"), "utf8")).front.prespawn;
    expect(saved.specs).toEqual([
      {
        instance: "mcpConnectors/a",
        command: "node",
        args: [server, pidFile],
        cwd: dir,
        env: expect.arrayContaining(["PATH"]),
      },
    ]);
    expect(await start()).toMatchObject({ content: [{ text: "hi" }] });
    // One server per start: the second start's was started ahead and adopted, not spawned twice.
    await until(() => pids(pidFile).every((pid) => !alive(pid)), 10_000, "the second start's server to stop");
    expect(pids(pidFile)).toHaveLength(2);
    // That it was started ahead shows when the saved one differs (re-signed, as only the key allows):
    // the start runs it, the instance kills it and spawns its own.
    const file = path.join(dir, ".patchbay", "catalog.json");
    const ahead = path.join(dir, "ahead-pids");
    const catalog = JSON.parse(readFileSync(file, "utf8"));
    const keyNow = Buffer.from(readFileSync(path.join(dir, ".patchbay", "catalog.key"), "utf8").trim(), "hex");
    const other = [unlikeSpec(catalog.front.prespawn.specs[0], ahead)];
    catalog.front.prespawn = savedPrespawns(keyNow, catalog.front.stamp, other);
    writeFileSync(file, JSON.stringify(catalog));
    await start();
    await until(
      () => [...pids(pidFile), ...pids(ahead)].every((pid) => !alive(pid)),
      10_000,
      "the third start's servers to stop",
    );
    expect(pids(ahead)).toHaveLength(1);
    expect(pids(pidFile)).toHaveLength(3);
  });
});

describe("serve --http", () => {
  it("starts the server its last boot's mcp-remote spawned while the CLI loads, and the instance adopts it", async () => {
    const dir = tempDir("pb-prespawn-http-");
    const pidFile = path.join(dir, "pids");
    const config = path.join(dir, "connectors.json");
    writeFileSync(
      config,
      JSON.stringify({
        plugins: [],
        mcpConnectors: { a: { plugin: "mcp-remote", config: { command: "node", args: [server, pidFile] } } },
      }),
    );
    const start = async () => {
      const serve = await startHttpServe(config);
      try {
        const client = await serve.connect();
        for (;;) {
          const r = await client.callTool({ name: "a__echo", arguments: { text: "hi" } });
          if (!r.isError) return await client.close().then(() => r);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await serve.stop();
      }
    };
    const stopped = (n: number, what: string) =>
      until(() => pids(pidFile).length === n && pids(pidFile).every((pid) => !alive(pid)), 10_000, what);
    await start();
    await stopped(1, "the first start's server to stop");
    expect(await start()).toMatchObject({ content: [{ text: "hi" }] });
    // One server per start: the second start's was started ahead and adopted, not spawned twice.
    await stopped(2, "the second start's server to stop");
    // Started ahead it was: a saved spawn that differs (re-signed, as only the key allows) runs,
    // and the instance kills it and spawns its own.
    const file = path.join(dir, ".patchbay", "catalog.json");
    const catalog = JSON.parse(readFileSync(file, "utf8"));
    const keyNow = Buffer.from(readFileSync(path.join(dir, ".patchbay", "catalog.key"), "utf8").trim(), "hex");
    const ahead = path.join(dir, "ahead-pids");
    const other = [unlikeSpec(catalog.front.prespawn.specs[0], ahead)];
    catalog.front.prespawn = savedPrespawns(keyNow, catalog.front.stamp, other);
    writeFileSync(file, JSON.stringify(catalog));
    await start();
    await stopped(3, "the third start's own server to stop");
    await until(() => pids(ahead).length === 1 && !alive(pids(ahead)[0]), 10_000, "the server started ahead to stop");
    // A catalog.json whose code does not hold (written without the key) starts nothing ahead.
    catalog.front.prespawn = { ...catalog.front.prespawn, mac: "0".repeat(64) };
    writeFileSync(file, JSON.stringify(catalog));
    await start();
    await stopped(4, "the fourth start's server to stop");
    expect(pids(ahead)).toHaveLength(1);
  });
});
