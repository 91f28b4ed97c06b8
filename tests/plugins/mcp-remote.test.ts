/**
 * mcp-remote against the real demo MCP server (servers/demo-mcp*.mjs): as a child process on
 * stdio, and as a separate process serving Streamable HTTP on 127.0.0.1.
 */
import { execFileSync, type ChildProcess } from "node:child_process";
import { startDemoHttp, type DemoServer } from "../../plugins/mcp-remote/tests/demo-server.js";
import { once } from "node:events";
import { createServer as createHttpServer } from "node:http";
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import plugin from "../../plugins/mcp-remote/src/index.js";
import { requestTimeout } from "../../plugins/mcp-remote/src/connection.js";
import { CONTRACT_SCHEMAS } from "../../src/contract/schemas.js";
import { makeCtx, type TestCtx } from "./_ctx.js";
import { until } from "../helpers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL("../../servers/demo-mcp.mjs", import.meta.url));

type Connector = Awaited<ReturnType<typeof plugin.create>>;
interface CallResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const opened: Connector[] = [];
const processes = new Set<ChildProcess>();

async function make(raw: Record<string, unknown>, remainingMs = 30_000): Promise<{ mcp: Connector } & TestCtx> {
  const t = makeCtx({ remainingMs });
  const mcp = (await plugin.create(plugin.config.parse(raw), t.ctx)) as Connector;
  opened.push(mcp);
  return { mcp, ...t };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The shared launcher, with every server it starts tracked so afterAll can stop them all. */
async function startHttp(port = 0, extraArgs: string[] = []): Promise<DemoServer> {
  const server = await startDemoHttp(port, extraArgs);
  processes.add(server.proc);
  server.proc.once("exit", () => processes.delete(server.proc));
  return server;
}

async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = once(proc, "exit");
  proc.kill("SIGKILL");
  await exited;
}

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

const text = (r: unknown) => (r as CallResult).content.map((c) => c.text ?? "").join("");

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close?.()));
});

afterAll(async () => {
  await Promise.all([...processes].map(kill));
});

let httpUrl = "";
beforeAll(async () => {
  httpUrl = (await startHttp()).url;
});

const transports: Array<[string, () => Record<string, unknown>]> = [
  ["stdio", () => ({ command: "node", args: [STDIO_SERVER], cwd: ROOT })],
  ["http", () => ({ url: httpUrl })],
];

describe.each(transports)("mcp-remote over %s", (_name, config) => {
  it("is healthy and lists the demo tools with their input schemas", async () => {
    const { mcp } = await make(config());
    expect(await mcp.health_check()).toBe(true);
    const tools = await mcp.list_tools();
    expect(CONTRACT_SCHEMAS.mcp.list_tools.result.parse(tools)).toBeTruthy();
    expect(tools.map((t) => t.name).sort()).toEqual(["add", "echo", "fail", "slow", "time", "whoami"]);
    const echo = tools.find((t) => t.name === "echo")!;
    expect(echo.description).toMatch(/text/);
    expect(echo.inputSchema).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
  });

  it("calls tools and returns the MCP result as-is", async () => {
    const { mcp } = await make(config());
    expect(text(await mcp.call("echo", { text: "hi there" }))).toBe("hi there");
    const sum = (await mcp.call("add", { a: 2, b: 40 })) as CallResult;
    expect(sum.structuredContent).toEqual({ sum: 42 });
    expect(text(sum)).toBe("42");
    expect(Date.parse(text(await mcp.call("time", {})))).not.toBeNaN();
  });

  it("returns isError results instead of throwing", async () => {
    const { mcp } = await make(config());
    const failed = (await mcp.call("fail", { message: "boom" })) as CallResult;
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe("boom");
    // bad arguments are a tool error too (the server validates its input schema)
    expect(((await mcp.call("add", { a: "x" })) as CallResult).isError).toBe(true);
  });

  it("times a slow tool out at the call's deadline, and the connection stays usable", async () => {
    const t = await make(config(), 30_000);
    await t.mcp.list_tools(); // connected
    t.setRemainingMs(300);
    await expect(t.mcp.call("slow", { ms: 20_000 })).rejects.toThrow(/timed out|timeout/i);
    t.setRemainingMs(30_000);
    expect(text(await t.mcp.call("echo", { text: "still here" }))).toBe("still here");
  });

  it("stops a call when ctx.signal aborts", async () => {
    const t = await make(config());
    await t.mcp.list_tools();
    const pending = t.mcp.call("slow", { ms: 20_000 });
    setTimeout(() => t.abort(new Error("cancelled by host")), 100);
    await expect(pending).rejects.toThrow();
    expect(text(await t.mcp.call("echo", { text: "after abort" }))).toBe("after abort");
  });

  it("passes per-call identity as _meta.patchbay_identity, and nothing when empty", async () => {
    const { mcp } = await make(config());
    expect(JSON.parse(text(await mcp.call("whoami", {}, { agentId: "ops-bot", isAdmin: false })))).toEqual({
      agentId: "ops-bot",
      isAdmin: false,
    });
    expect(JSON.parse(text(await mcp.call("whoami", {}, {})))).toBeNull();
    expect(JSON.parse(text(await mcp.call("whoami", {})))).toBeNull();
  });
});

describe("mcp-remote connection handling", () => {
  it("reconnects after the HTTP server restarts on the same port", async () => {
    const first = await startHttp();
    const { mcp, lines } = await make({ url: first.url });
    expect(text(await mcp.call("echo", { text: "before" }))).toBe("before");

    await kill(first.proc);
    const second = await startHttp(first.port);
    expect(second.port).toBe(first.port);

    // the old session id is unknown to the new process: the call is retried on a new session
    expect(text(await mcp.call("echo", { text: "after restart" }))).toBe("after restart");
    // A new session was opened (found lost when the server's stream broke, or on the 404 and retried).
    expect(lines.filter((l) => l.msg === "connected").length).toBe(2);
    expect(await mcp.health_check()).toBe(true);
    expect((await mcp.list_tools()).length).toBe(6);
    await kill(second.proc);
  });

  it("works with the demo HTTP server in stateless mode", async () => {
    const server = await startHttp(0, ["--stateless"]);
    const { mcp } = await make({ url: server.url });
    expect(await mcp.health_check()).toBe(true);
    expect((await mcp.list_tools()).length).toBe(6);
    expect(((await mcp.call("add", { a: 1, b: 2 })) as CallResult).structuredContent).toEqual({ sum: 3 });
    await kill(server.proc);
  });

  it("reports unhealthy while the server is down, and recovers when it is back (failed connects are not cached)", async () => {
    const port = await deadPort();
    const { mcp } = await make({ url: `http://127.0.0.1:${port}/mcp` });
    expect(await mcp.health_check()).toBe(false);
    await expect(mcp.call("echo", { text: "x" })).rejects.toThrow(/cannot connect/);
    const server = await startHttp(port);
    expect(await mcp.health_check()).toBe(true);
    expect(text(await mcp.call("echo", { text: "up" }))).toBe("up");
    await kill(server.proc);
    expect(await mcp.health_check()).toBe(false);
  });

  it("restarts a stdio server that died", async (ctx) => {
    if (process.platform !== "linux")
      ctx.skip("finds the server's pid with pgrep -f, which this test only relies on under Linux");
    const tag = `tag=reconnect-${process.pid}-${Date.now()}`;
    const { mcp } = await make({ command: "node", args: [STDIO_SERVER, tag] });
    expect(text(await mcp.call("echo", { text: "one" }))).toBe("one");
    const pid = Number(execFileSync("pgrep", ["-f", tag], { encoding: "utf8" }).trim().split("\n")[0]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, "SIGKILL");
    // ping is idempotent, so it is retried even if the child died under it (list_tools now answers from its cache)
    expect(await mcp.health_check()).toBe(true);
    expect((await mcp.list_tools()).length).toBe(6);
    expect(text(await mcp.call("echo", { text: "two" }))).toBe("two");
    const pids = execFileSync("pgrep", ["-f", tag], { encoding: "utf8" }).trim().split("\n").map(Number);
    expect(pids).not.toContain(pid);
  });

  it("health is false for a bad URL, a missing command, and a server that never answers", async () => {
    expect(await (await make({ url: `http://127.0.0.1:${await deadPort()}/mcp` })).mcp.health_check()).toBe(false);
    expect(await (await make({ command: "/nonexistent/mcp-server-binary" })).mcp.health_check()).toBe(false);

    // accepts connections, never answers: bounded by the remaining budget
    const sockets = new Set<Socket>();
    const blackHole: NetServer = createNetServer((s) => sockets.add(s));
    await new Promise<void>((resolve) => blackHole.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}/mcp`;
    // The server never answers: only a probe bounded by its budget returns at all.
    expect(await (await make({ url }, 300)).mcp.health_check()).toBe(false);
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => blackHole.close(resolve));
  });

  it("forwards the server's stderr through ctx.log", async () => {
    const { mcp, lines } = await make({
      command: "node",
      args: ["-e", "process.stderr.write('hello from stderr\\n'); setTimeout(() => {}, 100)"],
    });
    expect(await mcp.health_check()).toBe(false); // not an MCP server
    await until(
      () => lines.some((l) => l.msg === "server stderr" && l.data?.line === "hello from stderr"),
      10_000,
      "the stderr line",
    );
  });

  it("starts a stdio server at create(), before any call, and ends it on close even when no call came", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "pb-early-"));
    const pidFile = path.join(dir, "pid");
    try {
      const script =
        "require('fs').writeFileSync(process.env.PID_FILE, String(process.pid)); process.stdin.resume(); setInterval(() => {}, 1000)";
      const { mcp } = await make({ command: "node", args: ["-e", script], env: { PID_FILE: pidFile } });
      await until(
        () => existsSync(pidFile) && readFileSync(pidFile, "utf8").length > 0,
        10_000,
        "the server's pid file",
      );
      const pid = Number(readFileSync(pidFile, "utf8"));
      expect(alive(pid)).toBe(true);
      await mcp.close?.();
      await until(() => !alive(pid), 5_000, "the unused server to exit");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("gives a stdio server only a minimal environment plus its configured env", async () => {
    process.env.PB_TEST_HOST_SECRET = "host-only-value";
    try {
      const script =
        "console.error(JSON.stringify({ mine: process.env.MY_VAR ?? null, host: process.env.PB_TEST_HOST_SECRET ?? null, path: !!process.env.PATH }))";
      const { mcp, lines } = await make({ command: "node", args: ["-e", script], env: { MY_VAR: "configured" } });
      expect(await mcp.health_check()).toBe(false); // not an MCP server
      await until(
        () => lines.some((l) => l.msg === "server stderr" && String(l.data?.line).startsWith("{")),
        10_000,
        "the stderr line",
      );
      const line = lines.find((l) => l.msg === "server stderr" && String(l.data?.line).startsWith("{"));
      expect(JSON.parse(String(line?.data?.line))).toEqual({ mine: "configured", host: null, path: true });
    } finally {
      delete process.env.PB_TEST_HOST_SECRET;
    }
  });

  it("sends the configured headers with every HTTP request", async () => {
    const seen: Array<string | undefined> = [];
    const server = createHttpServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const { mcp } = await make({ url, headers: { Authorization: "Bearer s3cret-token" } });
    expect(await mcp.health_check()).toBe(false);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((h) => h === "Bearer s3cret-token")).toBe(true);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("never lets the SDK's 60 s default apply, and times out only after the host's deadline", () => {
    expect(requestTimeout(Infinity)).toBeGreaterThan(24 * 3600 * 1000);
    const t = requestTimeout(Date.now() + 120_000);
    // The host's deadline fires first (PB_ERR_CALL_TIMEOUT) and cancels; the SDK's timeout is only a backstop.
    expect(t).toBeGreaterThan(120_000);
    expect(t).toBeLessThanOrEqual(121_000);
  });

  it("validates its config: exactly one of url and command", () => {
    expect(() => plugin.config.parse({})).toThrow(/exactly one/);
    expect(() => plugin.config.parse({ url: "http://x/mcp", command: "node" })).toThrow(/exactly one/);
    expect(() => plugin.config.parse({ command: "node", headers: { a: "b" } })).toThrow(/headers apply to url only/);
    expect(() => plugin.config.parse({ url: "http://x/mcp", env: { A: "b" } })).toThrow(/env applies to command only/);
    expect(() => plugin.config.parse({ url: "file:///etc/passwd" })).toThrow(/http/);
    expect(plugin.config.parse({ url: "http://x/mcp" })).toMatchObject({
      args: [],
      cwd: ".",
      connect_timeout_ms: 10_000,
    });
  });
});
