/**
 * `serve` answers before its instances have booted: initialize at once (status says booting), the
 * first tools/list held for the boot when no catalog of a previous boot can answer it, every
 * instance's tools once booted; a required instance that fails its boot still ends serve with its
 * exit code; a server/discover probe before initialize is answered at once. And resources/read
 * and prompts/get routed by URI and name with no prior list.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cleanupTempDirs, runCli, writeConfig } from "../helpers.js";
import { childEnv, connectStdio, gatewayConfig } from "./_gateway.js";
import { everythingConfig } from "./_updates.js";

afterAll(cleanupTempDirs);

describe("serve while the instances boot", () => {
  it("answers initialize before the boot settles (status: booting), then lists every instance's tools", async () => {
    // A store whose health check never answers holds the boot for its health_timeout_ms.
    const { file, dir } = gatewayConfig({
      memoryStores: {
        slow: { plugin: "fx-health", required: false, health_timeout_ms: 8_000, config: { health: "hang" } },
      },
    });
    const s = await connectStdio(file);
    try {
      const status = await runCli(["status", "--json", "--config", file], { cwd: dir });
      expect(status.code, status.stderr).toBe(0);
      const doc = JSON.parse(status.stdout) as { booting: boolean; instances: { id: string; state: string }[] };
      expect(doc.booting).toBe(true);
      expect(doc.instances.find((i) => i.id === "memoryStores/slow")?.state).toBe("booting");
      // No catalog from an earlier boot: the first list waits for this boot.
      const names = (await s.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("gw__echo");
      const after = JSON.parse((await runCli(["status", "--json", "--config", file], { cwd: dir })).stdout) as {
        booting: boolean;
      };
      expect(after.booting).toBe(false);
    } finally {
      await s.close();
    }
  }, 90_000);

  it("the next start lists the last boot's tools while it is still booting, and serves calls after the handover", async () => {
    const { file, dir } = gatewayConfig({
      memoryStores: {
        slow: { plugin: "fx-health", required: false, health_timeout_ms: 10_000, config: { health: "hang" } },
      },
    });
    const first = await connectStdio(file);
    const listed = (await first.client.listTools()).tools.map((t) => t.name).sort();
    // The first boot settles (the slow store's health check times out) before its client leaves.
    while (JSON.parse((await runCli(["status", "--json", "--config", file], { cwd: dir })).stdout).booting !== false);
    await first.close();
    // Its stamps cover resolved config and env values (secrets too), so they are keyed: no plain
    // SHA-256 of what they cover stands in the file, and the key stays in the 0600 key file.
    const cache = readFileSync(path.join(dir, ".patchbay", "catalog.json"), "utf8");
    const text = readFileSync(file, "utf8");
    expect(cache).not.toContain(createHash("sha256").update(text).digest("hex"));
    const front = (JSON.parse(cache) as { front?: { stamp?: string; threads?: number } }).front;
    expect(front?.stamp).toMatch(/^[0-9a-f]{64}$/);
    // The threads its instances started, which the next start (below) warms while its CLI loads.
    expect(front?.threads).toBeGreaterThanOrEqual(1);
    expect(statSync(path.join(dir, ".patchbay", "catalog.key")).mode & 0o777).toBe(0o600);
    expect(cache).not.toContain(readFileSync(path.join(dir, ".patchbay", "catalog.key"), "utf8").trim());
    const again = await connectStdio(file);
    try {
      const early = (await again.client.listTools()).tools.map((t) => t.name).sort();
      // The head start answers before the CLI (and its control socket) is up: ask until it answers.
      let status = await runCli(["status", "--json", "--config", file], { cwd: dir });
      for (let i = 0; i < 50 && status.code !== 0; i++)
        status = await runCli(["status", "--json", "--config", file], { cwd: dir });
      expect(
        (JSON.parse(status.stdout) as { booting: boolean }).booting,
        "the list was answered before this boot settled",
      ).toBe(true);
      expect(early).toEqual(listed);
      const echoed = await again.client.callTool({ name: "gw__echo", arguments: { text: "after the handover" } });
      expect(echoed).toEqual({ content: [{ type: "text", text: "after the handover" }] });
    } finally {
      await again.close();
    }
  }, 120_000);

  it("the head start answers a server/discover probe at once, before the initialize that follows it", async () => {
    // Newer clients (Claude Code 2.1.3xx) probe with server/discover and hold their initialize
    // until it is answered or their probe times out: buffered for the gateway, it cost them seconds.
    const { file, dir } = gatewayConfig();
    const first = await connectStdio(file);
    expect((await first.client.listTools()).tools.map((t) => t.name)).toContain("gw__echo");
    await first.close();
    const proc = spawn(process.execPath, [BIN, "serve", "--mcp", "--config", file], {
      cwd: dir,
      env: childEnv(),
      stdio: ["pipe", "pipe", "ignore"],
    });
    const replies: { id?: unknown; error?: { code?: number }; result?: unknown }[] = [];
    const both = new Promise<void>((resolve) => {
      let buf = "";
      proc.stdout.on("data", (d: Buffer) => {
        buf += d.toString();
        for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
          replies.push(JSON.parse(buf.slice(0, nl)));
          buf = buf.slice(nl + 1);
        }
        if (replies.length >= 2) resolve();
      });
    });
    const exited = new Promise((resolve) => proc.on("exit", resolve));
    const line = (m: unknown) => proc.stdin.write(`${JSON.stringify(m)}\n`);
    line({ jsonrpc: "2.0", id: "probe-1", method: "server/discover", params: {} });
    line({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
    });
    await both;
    proc.stdin.end();
    await exited;
    // The same answer the gateway's MCP SDK gives a method it does not know.
    expect(replies[0]).toEqual({ jsonrpc: "2.0", id: "probe-1", error: { code: -32601, message: "Method not found" } });
    expect(replies[1]?.id).toBe(0);
    expect(replies[1]?.result).toMatchObject({ serverInfo: { name: "patchbay" } });
  }, 90_000);

  it("a required instance that fails its boot ends serve --mcp with the boot's exit code", async () => {
    const { file } = writeConfig({ memoryStores: { bad: { plugin: "fx-health", config: { health: "false" } } } });
    const proc = spawn(process.execPath, [BIN, "serve", "--mcp", "--config", file], {
      env: childEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => proc.on("exit", resolve));
    expect(code, stderr).toBe(1);
    expect(stderr).toContain("PB_ERR_BOOT_FAILED");
  }, 60_000);
});

describe("resources and prompts without a prior list", () => {
  it("prompts/get and resources/read route by name and URI alone, in a fresh session", async () => {
    const { file } = everythingConfig();
    const s = await connectStdio(file);
    try {
      const prompt = await s.client.getPrompt({ name: "everything__simple-prompt" });
      expect(prompt.messages.length).toBeGreaterThan(0);
      const read = await s.client.readResource({ uri: "demo://resource/static/document/architecture.md" });
      expect(read.contents.length).toBeGreaterThan(0);
      await expect(s.client.getPrompt({ name: "everything__no-such-prompt" })).rejects.toThrow(
        /PB_ERR_GATEWAY_PROMPT_UNKNOWN/,
      );
      // The server's own JSON-RPC error keeps its code and message through mcp-remote and the gateway.
      const missing = await s.client.readResource({ uri: "demo://resource/static/document/no-such.md" }).then(
        () => null,
        (e: unknown) => e as { code?: number; message?: string },
      );
      expect(missing?.code).toBe(-32602);
      expect(missing?.message).not.toMatch(/PB_ERR_PLUGIN_THREW/);
    } finally {
      await s.close();
    }
  }, 90_000);
});
