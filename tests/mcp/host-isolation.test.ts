/**
 * "isolation": "host": the bundled mcp-remote on the host's own thread, in front of real stdio MCP
 * servers (child processes), through a real host and a real `serve --mcp`. What must still hold
 * without a worker thread: calls and their deadlines, cancellation reaching the server, a hostile
 * server (10 MB lines, garbage) never taking the host down, close() ending the server. And only
 * a plugin Patchbay ships may ask for it: any other is refused with a code naming the instance
 * and the pointer.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, type PatchbayError } from "../../src/index.js";
import { loadConfig } from "../../src/config/load.js";
import { scanPlugins } from "../../src/discovery/scan.js";
import { bundledPluginsDir } from "../../src/paths.js";
import { planInstances } from "../../src/discovery/plan.js";
import { bootMcp, EVERYTHING, HOSTILE, ROOT, type TestHost, until, alive } from "./_host.js";

const DEMO = path.join(ROOT, "servers", "demo-mcp.mjs");
const FIXTURES = path.join(ROOT, "tests", "fixtures", "plugins");
const dir = mkdtempSync(path.join(tmpdir(), "pb-host-iso-"));
const hosts: TestHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.host.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function onHostThread(name: string, config: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const t = await bootMcp({ [name]: { plugin: "mcp-remote", isolation: "host", config, ...extra } });
  hosts.push(t);
  return t;
}

describe('"isolation": "host" with the bundled mcp-remote', () => {
  it("boots in front of a stdio server and calls its tools, on this thread", async () => {
    const t = await onHostThread("demo", { command: "node", args: [DEMO] });
    await expect(t.host.call("mcpConnectors/demo", "call", ["echo", { text: "hi" }])).resolves.toEqual({
      content: [{ type: "text", text: "hi" }],
    });
    expect(t.host.report().instances.find((i) => i.id === "mcpConnectors/demo")).toMatchObject({
      state: "ready",
      isolation: "host",
    });
    // The plugin's context runs here: a result is a copy, never an object the plugin still holds.
    const a = await t.host.call("mcpConnectors/demo", "call", ["echo", { text: "x" }]);
    const b = await t.host.call("mcpConnectors/demo", "call", ["echo", { text: "x" }]);
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
  });

  it("runs on the host's thread: the plugin reads the host's own environment, where a worker thread reads only its manifest's", async () => {
    // mcp-remote hands its server the SDK's default variables (USER among them) from the env it sees.
    const before = process.env.USER;
    process.env.USER = "pb-host-thread-marker";
    try {
      const t = await bootMcp({
        onhost: { plugin: "mcp-remote", isolation: "host", config: { command: "node", args: [EVERYTHING, "stdio"] } },
        inthread: { plugin: "mcp-remote", config: { command: "node", args: [EVERYTHING, "stdio"] } },
      });
      hosts.push(t);
      const env = async (id: string) => {
        const r = (await t.host.call(id, "call", ["get-env", {}])) as { content: { text: string }[] };
        return JSON.parse(r.content[0].text) as Record<string, string>;
      };
      expect((await env("mcpConnectors/onhost")).USER).toBe("pb-host-thread-marker");
      expect((await env("mcpConnectors/inthread")).USER).toBeUndefined();
    } finally {
      if (before === undefined) delete process.env.USER;
      else process.env.USER = before;
    }
  });

  it("still fails a call at its deadline, and the server hears notifications/cancelled", async () => {
    const cancelFile = path.join(dir, "cancelled.txt");
    const t = await onHostThread("slowpoke", { command: "node", args: [HOSTILE], env: { CANCEL_FILE: cancelFile } });
    const started = Date.now();
    await expect(
      t.host.call("mcpConnectors/slowpoke", "call", ["slow", { ms: 30_000 }], { timeoutMs: 500 }),
    ).rejects.toMatchObject({
      code: "PB_ERR_CALL_TIMEOUT",
      message: expect.stringContaining("mcpConnectors/slowpoke"),
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    await until(
      () => existsSync(cancelFile) && readFileSync(cancelFile, "utf8").includes("\n"),
      "the server to record the cancellation",
    );
    await expect(t.host.call("mcpConnectors/slowpoke", "call", ["ok", {}])).resolves.toMatchObject({
      content: [{ text: "ok" }],
    });
    // A caller withdrawing its call is the same path, with its own code.
    const caller = new AbortController();
    const pending = t.host.call("mcpConnectors/slowpoke", "call", ["slow", { ms: 30_000 }], {
      signal: caller.signal,
    });
    caller.abort();
    await expect(pending).rejects.toMatchObject({ code: "PB_ERR_CALL_CANCELLED" });
  });

  it("a hostile server (a 10 MB line, lines that are not JSON-RPC, a result breaking its schema) gets coded errors, and the host keeps serving", async () => {
    const t = await onHostThread("big", { command: "node", args: [HOSTILE] }, { timeout_ms: 90_000 });
    await expect(t.host.call("mcpConnectors/big", "call", ["huge", { mb: 10 }])).rejects.toMatchObject({
      code: "PB_ERR_PLUGIN_THREW",
      message: expect.stringMatching(/mcpConnectors\/big.*larger than 10 MiB/),
    });
    await expect(t.host.call("mcpConnectors/big", "call", ["garbage", {}])).resolves.toMatchObject({
      content: [{ text: "after garbage" }],
    });
    // The host still checks what comes back: a result that breaks its tool's outputSchema is refused.
    await t.host.call("mcpConnectors/big", "list_tools");
    await expect(t.host.call("mcpConnectors/big", "call", ["bad-output", {}])).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringMatching(/bad-output.*outputSchema/),
    });
    await expect(t.host.call("mcpConnectors/big", "call", ["ok", {}])).resolves.toMatchObject({
      content: [{ text: "ok" }],
    });
    expect(t.host.liveStatus().find((i) => i.id === "mcpConnectors/big")?.restarts).toBe(0);
  });

  it("close() ends the server, even one that ignores stdin closing and SIGTERM", async () => {
    const pidFile = path.join(dir, "stubborn.pid");
    const t = await bootMcp({
      stubborn: {
        plugin: "mcp-remote",
        isolation: "host",
        config: { command: "node", args: [HOSTILE, "--ignore-stdin-close"], env: { PID_FILE: pidFile } },
      },
    });
    await expect(t.host.call("mcpConnectors/stubborn", "call", ["ok", {}])).resolves.toBeTruthy();
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    await t.host.close();
    await until(() => !alive(pid), "the stubborn server to be gone");
  });

  it("serves tools/call through `serve --mcp`", async () => {
    const cfgDir = path.join(dir, "serve");
    mkdirSync(cfgDir);
    const config = path.join(cfgDir, "connectors.json");
    writeFileSync(
      config,
      JSON.stringify({
        plugins: [],
        mcpConnectors: { demo: { plugin: "mcp-remote", isolation: "host", config: { command: "node", args: [DEMO] } } },
      }),
    );
    const client = new Client({ name: "host-isolation-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(ROOT, "bin", "patchbay.mjs"), "serve", "--mcp", "--config", config],
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
        stderr: "ignore",
      }),
    );
    try {
      await expect(client.callTool({ name: "demo__echo", arguments: { text: "over stdio" } })).resolves.toMatchObject({
        content: [{ type: "text", text: "over stdio" }],
      });
    } finally {
      await client.close();
    }
    // The boot report says where the instance runs.
    const boot = spawnSync(process.execPath, [path.join(ROOT, "bin", "patchbay.mjs"), "boot", "--config", config], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    });
    expect(boot.status, boot.stderr).toBe(0);
    expect(boot.stdout).toMatch(/mcpConnectors\/demo .*ready.*on the host's thread/);
  });
});

describe('"isolation": "host" is only for the plugins Patchbay ships', () => {
  it("refuses a plugin that is not bundled, naming the instance, its pointer and what to set instead", async () => {
    const err = (await createHost({
      config: { plugins: [FIXTURES], mcpConnectors: { mine: { plugin: "fx-echo", isolation: "host" } } },
      dir,
      logLevel: "silent",
    }).then(
      () => null,
      (e: unknown) => e,
    )) as PatchbayError | null;
    expect(err?.code).toBe("PB_ERR_BOOT_FAILED");
    const failures = err!.data.failures as { code: string; message: string; data: Record<string, unknown> }[];
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      code: "PB_ERR_ISOLATION_HOST_DENIED",
      data: { instance: "mcpConnectors/mine", plugin: "fx-echo", pointer: "/mcpConnectors/mine/isolation" },
    });
    expect(failures[0].message).toMatch(/\/mcpConnectors\/mine\/isolation.*"thread".*"sandbox"/);
  });

  it("refuses a configured plugin that takes a bundled plugin's name (a copy is not Patchbay's code)", async () => {
    const own = path.join(dir, "own-plugins");
    mkdirSync(own);
    // A copy of the bundled mcp-remote in the operator's own folder shadows the bundled one: not Patchbay's code any more.
    cpSync(path.join(bundledPluginsDir(), "mcp-remote"), path.join(own, "mcp-remote"), {
      recursive: true,
      filter: (src) => !src.includes(`${path.sep}node_modules`),
    });
    const configDir = path.join(dir, "shadow");
    mkdirSync(configDir);
    const file = path.join(configDir, "connectors.json");
    writeFileSync(
      file,
      JSON.stringify({
        plugins: [own],
        mcpConnectors: {
          shadow: { plugin: "mcp-remote", isolation: "host", config: { command: "node", args: [DEMO] } },
        },
      }),
    );
    const config = await loadConfig({ config: file });
    const discovery = scanPlugins(config.pluginDirs, bundledPluginsDir());
    expect(discovery.plugins.get("mcp-remote")?.bundled).toBe(false);
    const plan = planInstances(config, discovery);
    expect(plan.instances).toEqual([]);
    expect(plan.errors.map((e) => [e.code, e.data.pointer])).toEqual([
      ["PB_ERR_ISOLATION_HOST_DENIED", "/mcpConnectors/shadow/isolation"],
    ]);
    // The same config with the bundled one: nothing to refuse.
    writeFileSync(
      file,
      JSON.stringify({
        plugins: [],
        mcpConnectors: { ok: { plugin: "mcp-remote", isolation: "host", config: { command: "node", args: [DEMO] } } },
      }),
    );
    const bundled = await loadConfig({ config: file });
    const ok = planInstances(bundled, scanPlugins(bundled.pluginDirs, bundledPluginsDir()));
    expect(ok.errors).toEqual([]);
    expect(ok.instances.map((i) => i.id)).toEqual(["mcpConnectors/ok"]);
  });
});
