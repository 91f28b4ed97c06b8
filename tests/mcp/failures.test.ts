/**
 * mcp-remote when things go wrong, through a real host: a timeout is PB_ERR_CALL_TIMEOUT and the
 * server hears notifications/cancelled; an HTTP server dying mid-call fails the call at once with
 * a coded error naming the instance; a stdio server that ignores stdin closing and SIGTERM is
 * still gone after host.close(); a server that answers badly (outputSchema broken, 10 MB, a
 * notification flood, lines that are not JSON-RPC) gets a coded error or a bound, and the
 * instance keeps serving.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startDemoHttp } from "../../plugins/mcp-remote/tests/demo-server.js";
import { bootMcp, HOSTILE, type TestHost, until, alive } from "./_host.js";

const dir = mkdtempSync(join(tmpdir(), "pb-mcp-failures-"));
const hosts: TestHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.host.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function hostile(
  name: string,
  env: Record<string, string> = {},
  extra: Record<string, unknown> = {},
  args: string[] = [],
): Promise<TestHost> {
  // The bound only turns a hang into a failure: a 10 MB result (and the reconnect after it) takes
  // far longer than 20 s on a loaded machine, and no test here waits for this bound to pass.
  const t = await bootMcp({
    [name]: {
      plugin: "mcp-remote",
      timeout_ms: 90_000,
      config: { command: "node", args: [HOSTILE, ...args], env },
      ...extra,
    },
  });
  hosts.push(t);
  return t;
}

describe("mcp-remote failure handling", () => {
  it("a call its caller withdraws (an AbortSignal) is PB_ERR_CALL_CANCELLED, the server is sent notifications/cancelled, and the worker is not restarted", async () => {
    const cancelFile = join(dir, "withdrawn.txt");
    const startFile = join(dir, "withdrawn-started.txt");
    const t = await hostile("withdrawn", { CANCEL_FILE: cancelFile, START_FILE: startFile });
    const caller = new AbortController();
    const call = t.host.call("mcpConnectors/withdrawn", "call", ["slow", { ms: 30_000 }], { signal: caller.signal });
    // Withdrawn once it runs on the server (not before it got there).
    await until(() => existsSync(startFile), "the call to reach the server");
    caller.abort();
    await expect(call).rejects.toMatchObject({
      code: "PB_ERR_CALL_CANCELLED",
      message: expect.stringContaining("mcpConnectors/withdrawn"),
    });
    // The line itself is the marker: appendFileSync creates the file before it writes the line.
    await until(
      () => existsSync(cancelFile) && readFileSync(cancelFile, "utf8").includes("\n"),
      "the server to record the cancellation",
    );
    // Already aborted: refused before anything crosses.
    await expect(
      t.host.call("mcpConnectors/withdrawn", "call", ["ok", {}], { signal: caller.signal }),
    ).rejects.toMatchObject({ code: "PB_ERR_CALL_CANCELLED" });
    await expect(t.host.call("mcpConnectors/withdrawn", "call", ["ok", {}])).resolves.toMatchObject({
      content: [{ text: "ok" }],
    });
    expect(t.host.liveStatus().find((i) => i.id === "mcpConnectors/withdrawn")?.restarts).toBe(0);
  });

  it("a call that runs out of time is PB_ERR_CALL_TIMEOUT, and the server is sent notifications/cancelled", async () => {
    const cancelFile = join(dir, "cancelled.txt");
    const t = await hostile("slowpoke", { CANCEL_FILE: cancelFile });
    await expect(
      t.host.call("mcpConnectors/slowpoke", "call", ["slow", { ms: 30_000 }], { timeoutMs: 500 }),
    ).rejects.toMatchObject({
      code: "PB_ERR_CALL_TIMEOUT",
      message: expect.stringContaining("mcpConnectors/slowpoke"),
    });
    // The server's handler saw its request cancelled: wait for the file it writes then.
    // The line itself is the marker: appendFileSync creates the file before it writes the line.
    await until(
      () => existsSync(cancelFile) && readFileSync(cancelFile, "utf8").includes("\n"),
      "the server to record the cancellation",
    );
    expect(readFileSync(cancelFile, "utf8")).toMatch(/cancelled/);
    await expect(t.host.call("mcpConnectors/slowpoke", "call", ["ok", {}])).resolves.toMatchObject({
      content: [{ text: "ok" }],
    });
  });

  it("an HTTP server that dies mid-call fails the call at once with a coded error naming the instance", async () => {
    const server = await startDemoHttp();
    const t = await bootMcp({ web: { plugin: "mcp-remote", timeout_ms: 600_000, config: { url: server.url } } });
    hosts.push(t);
    try {
      await t.host.call("mcpConnectors/web", "call", ["echo", { text: "up" }]);
      let started!: () => void;
      const reached = new Promise<void>((resolve) => (started = resolve));
      // The demo server's slow tool reports progress 0 when it starts: the call is on the server; kill it then.
      const pending = t.host.call("mcpConnectors/web", "call", ["slow", { ms: 100_000 }], {
        onProgress: () => started(),
      });
      await reached;
      // Far inside the 600 s deadline: the test itself times out at the suite's 120 s, which also has to
      // cover booting the host and the HTTP server on a loaded machine. Awaited from before the stop:
      // the call may fail while the server stops, and a rejection nothing handles yet is reported.
      const failed = expect(pending).rejects.toMatchObject({
        code: "PB_ERR_SUBSTRATE_UNAVAILABLE",
        message: expect.stringMatching(/mcpConnectors\/web.*lost/),
      });
      await server.stop();
      await failed;
    } finally {
      await server.stop();
    }
  });

  it("a stdio server that ignores stdin closing and SIGTERM is gone after host.close()", async () => {
    const pidFile = join(dir, "stubborn.pid");
    const t = await bootMcp({
      stubborn: {
        plugin: "mcp-remote",
        config: { command: "node", args: [HOSTILE, "--ignore-stdin-close"], env: { PID_FILE: pidFile } },
      },
    });
    await t.host.call("mcpConnectors/stubborn", "call", ["ok", {}]);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    await t.host.close();
    expect(alive(pid)).toBe(false);
  });

  it("a result that breaks the tool's own outputSchema is PB_ERR_CONTRACT_VIOLATION; a kept one passes", async () => {
    const t = await hostile("schemas");
    await expect(t.host.call("mcpConnectors/schemas", "call", ["bad-output", {}])).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringMatching(/bad-output.*outputSchema/),
    });
    await expect(t.host.call("mcpConnectors/schemas", "call", ["good-output", {}])).resolves.toMatchObject({
      structuredContent: { count: 3 },
    });
    const tools = (await t.host.call("mcpConnectors/schemas", "list_tools")) as {
      name: string;
      title?: string;
      annotations?: unknown;
    }[];
    expect(tools.find((x) => x.name === "good-output")).toMatchObject({
      title: "Good output",
      annotations: { readOnlyHint: true },
    });
  });

  it("a 10 MB tool result is refused with a coded error, and the instance keeps serving", async () => {
    const t = await hostile("big");
    // Over 10 MiB the SDK's stdio reader drops the session; the error says why, and the next call reconnects.
    await expect(t.host.call("mcpConnectors/big", "call", ["huge", { mb: 10 }])).rejects.toMatchObject({
      code: "PB_ERR_PLUGIN_THREW",
      message: expect.stringMatching(/mcpConnectors\/big.*larger than 10 MiB/),
    });
    // Under the SDK's limit but over mcp-remote's own (8 MiB): refused without dropping the session.
    await expect(t.host.call("mcpConnectors/big", "call", ["huge", { mb: 9 }])).rejects.toMatchObject({
      code: "PB_ERR_PLUGIN_THREW",
      message: expect.stringMatching(/mcpConnectors\/big.*more than/),
    });
    await expect(t.host.call("mcpConnectors/big", "call", ["huge", { mb: 1 }])).resolves.toBeTruthy();
    await expect(t.host.call("mcpConnectors/big", "call", ["ok", {}])).resolves.toMatchObject({
      content: [{ text: "ok" }],
    });
  });

  it("a notification flood is bounded in the instance log, and the instance keeps serving", async () => {
    const t = await hostile("flood");
    await expect(t.host.call("mcpConnectors/flood", "call", ["flood", { count: 5_000 }])).resolves.toMatchObject({
      content: [{ text: "flooded" }],
    });
    const forwarded = t.logs.filter((l) => l.msg === "server log" && l.instance === "mcpConnectors/flood").length;
    expect(forwarded).toBeGreaterThan(0);
    expect(forwarded).toBeLessThan(5_000);
    await t.host.call("mcpConnectors/flood", "call", ["ok", {}]);
    // stderr is bounded the same way.
    await t.host.call("mcpConnectors/flood", "call", ["stderr-flood", {}]);
    await t.waitLog((l) => l.msg === "server stderr" && l.line === "stderr line 0", "the first stderr line");
    expect(t.logs.filter((l) => l.msg === "server stderr").length).toBeLessThan(5_000);
  });

  it("lines that are not JSON-RPC do not break the session", async () => {
    const t = await hostile("garbage");
    await expect(t.host.call("mcpConnectors/garbage", "call", ["garbage", {}])).resolves.toMatchObject({
      content: [{ text: "after garbage" }],
    });
    await expect(t.host.call("mcpConnectors/garbage", "call", ["ok", {}])).resolves.toMatchObject({
      content: [{ text: "ok" }],
    });
  });

  it("progress reaches the caller, and a call without onProgress still works", async () => {
    const t = await hostile("prog");
    const seen: { progress: number; total?: number; message?: string }[] = [];
    await t.host.call("mcpConnectors/prog", "call", ["progress", { steps: 3 }], { onProgress: (u) => seen.push(u) });
    // At most one report per 50 ms reaches the caller (under load two may coalesce), in order, and the last one always.
    const steps = seen.map((u) => u.progress);
    expect(steps.length).toBeGreaterThan(0);
    expect([...steps].sort()).toEqual(steps);
    expect(seen.at(-1)).toEqual({ progress: 3, total: 3, message: "step 3" });
    await expect(t.host.call("mcpConnectors/prog", "call", ["progress", { steps: 1 }])).resolves.toMatchObject({
      content: [{ text: "done" }],
    });
  });

  it("progress of concurrent calls reaches each its own caller (the relay keeps each call's context)", async () => {
    const t = await hostile("prog2");
    const two: { total?: number }[] = [];
    const four: { total?: number }[] = [];
    await Promise.all([
      t.host.call("mcpConnectors/prog2", "call", ["progress", { steps: 2 }], { onProgress: (u) => two.push(u) }),
      t.host.call("mcpConnectors/prog2", "call", ["progress", { steps: 4 }], { onProgress: (u) => four.push(u) }),
    ]);
    expect(two.length).toBeGreaterThan(0);
    expect(four.length).toBeGreaterThan(0);
    expect(two.every((u) => u.total === 2)).toBe(true);
    expect(four.every((u) => u.total === 4)).toBe(true);
    expect(two.at(-1)).toEqual({ progress: 2, total: 2, message: "step 2" });
    expect(four.at(-1)).toEqual({ progress: 4, total: 4, message: "step 4" });
  });

  it("caches the tool list and refreshes it when the server says list_changed", async () => {
    const t = await hostile("changing");
    const names = async () =>
      ((await t.host.call("mcpConnectors/changing", "list_tools")) as { name: string }[]).map((x) => x.name);
    expect(await names()).not.toContain("late");
    await t.host.call("mcpConnectors/changing", "call", ["add-tool", {}]);
    await t.waitLog(
      (l) => l.msg === "tool list changed" && l.instance === "mcpConnectors/changing",
      "the list_changed notification",
    );
    expect(await names()).toContain("late");
  });

  it("a server that accepts connections and never answers is unhealthy (false) within the health budget, not a health timeout", async () => {
    const sockets = new Set<Socket>();
    const blackHole = createNetServer((sock) => sockets.add(sock));
    await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}/mcp`;
      const t = await bootMcp({
        hole: { plugin: "mcp-remote", required: false, health_timeout_ms: 3_000, config: { url } },
      });
      hosts.push(t);
      const report = t.host.report().instances.find((i) => i.id === "mcpConnectors/hole")!;
      expect(report.error).toMatchObject({
        code: "PB_ERR_HEALTH_FAILED",
        message: expect.stringContaining("returned false"),
      });
    } finally {
      for (const sock of sockets) sock.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    }
  });
});
