/**
 * What real MCP clients show a user whose token is missing or wrong, against a live
 * `serve --http` on 127.0.0.1: the MCP Inspector CLI and npm `mcp-remote` (installed by
 * .ci/mcp-clients.sh, run with Node >= 22), and Claude Code (.ci/claude-code.sh and
 * .ci/claude-code-latest.sh). Each must show Patchbay's reason (PB_ERR_GATEWAY_UNAUTHORIZED and
 * whether the token was missing or wrong), not an OAuth failure that hides it, and never the token.
 * The right token still works through the same clients.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlineEnv } from "../../plugins/claude-code/src/certify.js";
import { startMessagesStub } from "../../src/adapter/certify/messages-stub.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";
import { gatewayConfig, startHttpServe, type HttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const NODE22 = process.env.PATCHBAY_NODE22;
const INSPECTOR = process.env.PATCHBAY_INSPECTOR_CLI;
const MCP_REMOTE = process.env.PATCHBAY_MCP_REMOTE;
const CLAUDES = [
  { label: "certified", bin: process.env.PATCHBAY_CLAUDE_BIN },
  { label: "newest", bin: process.env.PATCHBAY_CLAUDE_LATEST_BIN },
].filter((c): c is { label: string; bin: string } => !!c.bin);

const TOKEN = "auth-clients-token-7c41e9d2a8";
const CODE = "PB_ERR_GATEWAY_UNAUTHORIZED";
const MISSING = "no token was sent";
const WRONG = "is not this server's token";
/** What the OAuth detour showed instead of Patchbay's reason. */
const OAUTH_DETOUR = /requires a TTY|Dynamic Client Registration|ZodError/;

if (!NODE22 || !INSPECTOR || !MCP_REMOTE)
  console.log(
    "skipping the Inspector CLI / mcp-remote auth tests: PATCHBAY_NODE22, PATCHBAY_INSPECTOR_CLI or PATCHBAY_MCP_REMOTE is not set (run .ci/mcp-clients.sh)",
  );
if (CLAUDES.length === 0)
  console.log(
    "skipping the Claude Code auth tests: neither PATCHBAY_CLAUDE_BIN nor PATCHBAY_CLAUDE_LATEST_BIN is set (run .ci/claude-code.sh)",
  );

let serve: HttpServe;
beforeAll(async () => {
  if ((!NODE22 || !INSPECTOR || !MCP_REMOTE) && CLAUDES.length === 0) return;
  serve = await startHttpServe(gatewayConfig().file, { PATCHBAY_TOKEN: TOKEN });
}, 60_000);
afterAll(async () => {
  await serve?.stop();
});

interface Run {
  code: number | null;
  out: string;
}

/**
 * Runs a client to its end (stdin closed, as in a script or CI) in a home of its own, so no
 * stored OAuth state or keychain of this machine plays a part; stdout and stderr together.
 */
function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const home = tempDir("pb-auth-client-");
    const child = spawn(cmd, args, {
      cwd: home,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, MCP_INSPECTOR_SECRET_STORE: "memory", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const bearer = (token: string | null): string[] =>
  token === null ? [] : ["--header", `Authorization: Bearer ${token}`];

function expectReason(r: Run, reason: string): void {
  expect(r.code, r.out).not.toBe(0);
  expect(r.out).toContain(CODE);
  expect(r.out).toContain(reason);
  expect(r.out).not.toMatch(OAUTH_DETOUR);
  expect(r.out).not.toContain(TOKEN);
  expect(r.out).not.toContain(TOKEN.slice(0, 12));
}

describe.runIf(NODE22 && INSPECTOR && MCP_REMOTE)("a missing or wrong token, as real MCP clients show it", () => {
  const inspector = (token: string | null) =>
    run(NODE22!, [INSPECTOR!, "--cli", serve.url, "--transport", "http", "--method", "tools/list", ...bearer(token)]);
  const mcpRemote = (token: string | null) =>
    run(NODE22!, [MCP_REMOTE!, serve.url, "--transport", "http-only", ...bearer(token)]);

  it("the Inspector CLI shows Patchbay's reason: token missing, token wrong", async () => {
    expectReason(await inspector(null), MISSING);
    expectReason(await inspector("not-the-token"), WRONG);
  }, 200_000);

  it("mcp-remote shows Patchbay's reason: token missing, token wrong", async () => {
    expectReason(await mcpRemote(null), MISSING);
    expectReason(await mcpRemote("not-the-token"), WRONG);
  }, 200_000);

  it("the right token still works through the Inspector CLI and mcp-remote", async () => {
    const listed = await inspector(TOKEN);
    expect(listed.code, listed.out).toBe(0);
    expect(listed.out).toContain("gw__echo");

    // mcp-remote is a stdio bridge: it answers an initialize sent on its stdin once it reached the server.
    const home = tempDir("pb-auth-client-");
    const child = spawn(NODE22!, [MCP_REMOTE!, serve.url, "--transport", "http-only", ...bearer(TOKEN)], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
    });
    let log = "";
    child.stderr.on("data", (d: Buffer) => (log += d.toString()));
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("\n")) resolve(out);
        });
        child.on("exit", (code) => reject(new Error(`mcp-remote exited ${code}:\n${log}`)));
        child.stdin.write(
          `${JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "auth-test", version: "1" },
            },
          })}\n`,
        );
      });
      expect(JSON.parse(answer.split("\n")[0]).result.serverInfo.name).toBeTruthy();
    } finally {
      child.kill("SIGTERM");
    }
  }, 200_000);
});

describe.runIf(CLAUDES.length > 0)("a missing or wrong token, as Claude Code shows it", () => {
  /** A home whose user config has two http entries: one with a wrong token, one with none. */
  function claudeHome(): string {
    const home = tempDir("pb-auth-claude-");
    const entry = (headers?: Record<string, string>) => ({ type: "http", url: serve.url, ...(headers && { headers }) });
    writeFileSync(
      path.join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: { pbwrong: entry({ Authorization: "Bearer not-the-token" }), pbnone: entry() },
      }),
    );
    return home;
  }

  for (const { label, bin } of CLAUDES) {
    it(`${label} client: its MCP log names Patchbay's reason for each server (claude -p --debug)`, async () => {
      const stub = await startMessagesStub(() => [{ type: "text", text: "done" }]);
      try {
        const home = claudeHome();
        const r = await run(bin, ["-p", "hi", "--debug"], offlineEnv(home, stub.url));
        expect(r.code, r.out).toBe(0);
        const dir = path.join(home, ".claude", "debug");
        const log = readdirSync(dir)
          .filter((f) => f.endsWith(".txt"))
          .map((f) => readFileSync(path.join(dir, f), "utf8"))
          .join("\n");
        const about = (name: string) =>
          log
            .split("\n")
            .filter((l) => l.includes(`MCP server "${name}"`))
            .join("\n");
        expect(about("pbwrong")).toContain(CODE);
        expect(about("pbwrong")).toContain(WRONG);
        expect(about("pbnone")).toContain(CODE);
        expect(about("pbnone")).toContain(MISSING);
        expect(about("pbnone")).not.toMatch(OAUTH_DETOUR);
        // The client blanks "Authorization: <value>" in its log; the reason must not read like one.
        const reasons = log.split("\n").filter((l) => l.includes(CODE));
        expect(reasons.filter((l) => l.includes("[REDACTED]"))).toEqual([]);
        expect(log).not.toContain(TOKEN);
      } finally {
        await stub.close();
      }
    }, 200_000);
  }

  const newest = CLAUDES.find((c) => c.label === "newest");
  it.runIf(newest)(
    "newest client: `claude mcp list` prints Patchbay's reason for a wrong token",
    async () => {
      const home = claudeHome();
      const r = await run(newest!.bin, ["mcp", "list"], offlineEnv(home, "http://127.0.0.1:9"));
      const line = r.out.split("\n").find((l) => l.startsWith("pbwrong:")) ?? r.out;
      expect(line).toContain(CODE);
      expect(line).toContain(WRONG);
      // With no header at all the client says only this; the -p log above has the reason.
      expect(r.out).toMatch(/pbnone:.*Needs authentication/);
    },
    200_000,
  );
});
