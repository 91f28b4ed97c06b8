/**
 * `patchbay serve --mcp` against the real bin with the real SDK client over stdio: what is
 * listed (allowlisted only, named by instance), calls and their errors, bad input, and the tool
 * list following live health.
 */
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cleanupTempDirs, runCli } from "../helpers.js";
import { childEnv, connectStdio, gatewayConfig, nextToolListChange, toolText } from "./_gateway.js";

afterAll(cleanupTempDirs);

describe("serve --mcp (stdio)", () => {
  it("lists only allowlisted tools under instance-named names, with title and annotations passed through", async () => {
    const { file } = gatewayConfig();
    const s = await connectStdio(file);
    try {
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name).sort();
      expect(names).toEqual(["gw__echo", "gw__fail", "gw__slow", "gw__whoami", "memory__primary__query"]);
      expect(names).not.toContain("gw__secret");
      const echo = tools.find((t) => t.name === "gw__echo")!;
      expect(echo.title).toBe("Echo");
      expect(echo.annotations).toEqual({ readOnlyHint: true });
      const query = tools.find((t) => t.name === "memory__primary__query")!;
      expect(query.inputSchema.required).toEqual(expect.arrayContaining(["query", "limit", "mode"]));
    } finally {
      await s.close();
    }
  });

  it("passes results and the server's error results through; Patchbay failures are coded tool errors; it keeps serving", async () => {
    const { file } = gatewayConfig({ defaults: { timeout_ms: 500, health_interval_ms: 60_000 } });
    const s = await connectStdio(file);
    try {
      expect(await s.client.callTool({ name: "gw__echo", arguments: { text: "hi" } })).toEqual({
        content: [{ type: "text", text: "hi" }],
      });
      expect(await s.client.callTool({ name: "gw__fail", arguments: {} })).toEqual({
        content: [{ type: "text", text: "quota exceeded" }],
        isError: true,
      });
      const timeout = await s.client.callTool({ name: "gw__slow", arguments: { ms: 60_000 } });
      expect(timeout.isError).toBe(true);
      expect(toolText(timeout)).toMatch(/^\[PB_ERR_CALL_TIMEOUT\]/);
      const unknown = await s.client.callTool({ name: "gw__secret", arguments: {} });
      expect(toolText(unknown)).toMatch(/^\[PB_ERR_GATEWAY_TOOL_UNKNOWN\]/);
      const badArgs = await s.client.callTool({ name: "gw__echo", arguments: { text: 5 } });
      expect(toolText(badArgs)).toMatch(/^\[PB_ERR_CONTRACT_ARGS\].*input schema/);
      const badMemory = await s.client.callTool({ name: "memory__primary__query", arguments: { query: 1 } });
      expect(toolText(badMemory)).toMatch(/^\[PB_ERR_CONTRACT_ARGS\]/);
      const huge = await s.client.callTool({ name: "gw__echo", arguments: { text: "x".repeat(10 * 1024 * 1024) } });
      expect(toolText(huge)).toMatch(/^\[PB_ERR_CONTRACT_ARGS\].*too large/);
      expect(toolText(await s.client.callTool({ name: "gw__echo", arguments: { text: "still here" } }))).toBe(
        "still here",
      );
    } finally {
      await s.close();
    }
  }, 90_000);

  it("withdraws an instance's tools with list_changed when it turns unhealthy, and brings them back; a required instance does not stop the server", async () => {
    const setup = gatewayConfig();
    const s = await connectStdio(setup.file);
    try {
      expect((await s.client.listTools()).tools.map((t) => t.name)).toContain("gw__echo");
      let changed = nextToolListChange(s.client);
      setup.setHealthy(false);
      await changed;
      const down = (await s.client.listTools()).tools.map((t) => t.name);
      expect(down).toEqual(["memory__primary__query"]);
      const status = await runCli(["status", "--json", "--config", setup.file], { cwd: setup.dir, env: childEnv() });
      const gw = JSON.parse(status.stdout).instances.find((i: { id: string }) => i.id === "mcpConnectors/gw");
      expect(gw).toMatchObject({ healthy: false, state: "failed", error: { code: "PB_ERR_HEALTH_FAILED" } });
      expect(toolText(await s.client.callTool({ name: "gw__echo", arguments: { text: "x" } }))).toMatch(
        /PB_ERR_GATEWAY_TOOL_UNKNOWN/,
      );
      changed = nextToolListChange(s.client);
      setup.setHealthy(true);
      await changed;
      expect((await s.client.listTools()).tools.map((t) => t.name)).toContain("gw__echo");
      expect(toolText(await s.client.callTool({ name: "gw__echo", arguments: { text: "back" } }))).toBe("back");
    } finally {
      await s.close();
    }
  });

  it("answers malformed JSON-RPC and unknown methods with protocol errors and keeps serving; stdout carries only protocol", async () => {
    const { file } = gatewayConfig();
    const child = spawn(process.execPath, [BIN, "serve", "--mcp", "--config", file], { env: childEnv() });
    const lines: Record<string, unknown>[] = [];
    let out = "";
    const waiters: [(m: Record<string, unknown>) => boolean, () => void][] = [];
    child.stdout.on("data", (d) => {
      out += d;
      let nl;
      while ((nl = out.indexOf("\n")) !== -1) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        const msg = JSON.parse(line) as Record<string, unknown>; // Anything but JSON-RPC on stdout fails here.
        lines.push(msg);
        for (const w of waiters.splice(0)) w[0](msg) ? w[1]() : waiters.push(w);
      }
    });
    const reply = (id: number) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const found = lines.find((l) => l.id === id);
        if (found) return resolve(found);
        waiters.push([(m) => m.id === id, () => resolve(lines.find((l) => l.id === id)!)]);
      });
    const send = (msg: unknown) => child.stdin.write((typeof msg === "string" ? msg : JSON.stringify(msg)) + "\n");
    try {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
      await reply(1);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send("{this is not json");
      send({ jsonrpc: "2.0", id: 2, method: "no/such/method" });
      expect((await reply(2)).error).toMatchObject({ code: -32601 });
      send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: 42 } });
      // The SDK's server answers a request whose params fail its schema with a JSON-RPC error.
      expect((await reply(3)).error).toMatchObject({
        code: expect.any(Number),
        message: expect.stringMatching(/name/i),
      });
      send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "gw__echo", arguments: { text: "ok" } } });
      expect((await reply(4)).result).toEqual({ content: [{ type: "text", text: "ok" }] });
    } finally {
      child.stdin.end();
      await new Promise((r) => child.once("exit", r));
    }
  });
});
