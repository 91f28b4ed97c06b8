/**
 * The real Claude Code client against `patchbay serve`, offline (the project's Messages API stub
 * on 127.0.0.1), on the bundled connectors.json, wired through a project `.mcp.json` with the
 * client's default MCP connection settings (no MCP_CONNECTION_NONBLOCKING / MCP_CONNECT_TIMEOUT_MS;
 * the entry is docs/gateway.md's, `alwaysLoad` included):
 * the first request the model API receives lists the Patchbay tools, a scripted tool_use of
 * `primary__echo` reaches the demo MCP server, and its answer comes back in the next request.
 * Over stdio (the client spawns `serve --mcp`) and over `serve --http` with a bearer header.
 *
 * `.ci/claude-code.sh` installs the certified client (PATCHBAY_CLAUDE_BIN); `.ci/claude-code-latest.sh`
 * the newest on the registry (PATCHBAY_CLAUDE_LATEST_BIN, which defers MCP tools behind ToolSearch
 * and needs `--allowedTools` in -p mode). Without them the tests skip, saying why.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { offlineEnv } from "../../plugins/claude-code/src/certify.js";
import { startMessagesStub, type StubRequest } from "../../src/adapter/certify/messages-stub.js";
import { BIN, cleanupTempDirs, ROOT, tempDir } from "../helpers.js";
import { connectStdio, startHttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const CLIENTS = [
  { label: "certified", bin: process.env.PATCHBAY_CLAUDE_BIN },
  { label: "newest", bin: process.env.PATCHBAY_CLAUDE_LATEST_BIN },
].filter((c): c is { label: string; bin: string } => {
  if (!c.bin)
    console.log(
      `skipping the real Claude Code gateway test (${c.label} client): ${c.label === "certified" ? "PATCHBAY_CLAUDE_BIN is not set (run .ci/claude-code.sh)" : "PATCHBAY_CLAUDE_LATEST_BIN is not set (run .ci/claude-code-latest.sh)"}`,
    );
  return !!c.bin;
});

const ECHO = "mcp__patchbay__primary__echo";

/** A project holding a copy of the bundled connectors.json (its plugins and demo server linked in). */
function project(): { dir: string; config: string; home: string } {
  const root = tempDir("pb-real-gw-");
  const dir = path.join(root, "project");
  const home = path.join(root, "home");
  mkdirSync(path.join(dir, ".claude"), { recursive: true });
  mkdirSync(home, { recursive: true });
  copyFileSync(path.join(ROOT, "connectors.json"), path.join(dir, "connectors.json"));
  symlinkSync(path.join(ROOT, "plugins"), path.join(dir, "plugins"));
  symlinkSync(path.join(ROOT, "servers"), path.join(dir, "servers"));
  // The project's MCP servers approved, as `claude` asks once interactively.
  writeFileSync(
    path.join(dir, ".claude", "settings.local.json"),
    JSON.stringify({ enabledMcpjsonServers: ["patchbay"] }),
  );
  return { dir, config: path.join(dir, "connectors.json"), home };
}

/** The client's own account of its MCP connections (its --debug log), for a failure's message. */
function mcpLog(home: string): string {
  const dir = path.join(home, ".claude", "debug");
  try {
    return readdirSync(dir)
      .map((f) => readFileSync(path.join(dir, f), "utf8"))
      .join("\n")
      .split("\n")
      .filter((l) => /MCP|API REQUEST/.test(l))
      .slice(-30)
      .join("\n");
  } catch {
    return "(no debug log)";
  }
}

function runClaude(
  bin: string,
  cwd: string,
  env: Record<string, string>,
  extra: string[],
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      bin,
      ["-p", "echo something through patchbay", "--permission-mode", "bypassPermissions", "--debug", ...extra],
      { cwd, env, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** One scripted turn: the model calls primary__echo once it is offered (by name, or found through ToolSearch). */
async function turn(bin: string, dir: string, home: string, extra: string[]) {
  const marker = `PB-REAL-${Math.random().toString(36).slice(2, 10)}`;
  const offered = (r: StubRequest) => r.text.includes(ECHO);
  const stub = await startMessagesStub((req) => {
    const assistant = (req.body.messages as { role: string }[]).filter((m) => m.role === "assistant").length;
    if (assistant === 0 && offered(req)) return [{ type: "tool_use", name: ECHO, input: { text: marker } }];
    return [{ type: "text", text: "done" }];
  });
  try {
    const env = { ...offlineEnv(home, stub.url), PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
    const run = await runClaude(bin, dir, env, extra);
    expect(run.code, run.stderr).toBe(0);
    const main = stub.requests.filter((r) => Array.isArray(r.body.tools) && (r.body.tools as unknown[]).length > 0);
    expect(main.length, "the client sent its turn to the stub").toBeGreaterThan(0);
    expect(offered(main[0]), `the first request offers ${ECHO}; the client's MCP log:\n${mcpLog(home)}`).toBe(true);
    const answer = main.find((r) => r.text.includes('"tool_result"') && r.text.includes(marker));
    expect(answer, "the demo server's echo came back in the next request").toBeDefined();
    expect(answer!.text).not.toMatch(/"is_error":\s*true/);
  } finally {
    await stub.close();
  }
}

describe.runIf(CLIENTS.length > 0)("the real Claude Code client through the gateway", () => {
  for (const { label, bin } of CLIENTS) {
    // The newest client defers MCP tools behind ToolSearch only against first-party hosts; -p
    // still needs the tool allowed (or a permission mode), which the docs' recipe gives.
    const extra = label === "newest" ? ["--allowedTools", ECHO] : [];

    it(`${label} client: serve --mcp spawned from .mcp.json, default connection settings`, async () => {
      const { dir, config, home } = project();
      // docs/gateway.md's recipe: alwaysLoad is a per-server key (not a connection-setting override)
      // that has -p mode wait for this server (up to the client's 5 s) and never defers its tools.
      writeFileSync(
        path.join(dir, ".mcp.json"),
        JSON.stringify({
          mcpServers: {
            patchbay: {
              command: process.execPath,
              args: [BIN, "serve", "--mcp", "--config", config],
              alwaysLoad: true,
            },
          },
        }),
      );
      // One boot leaves its answers in .patchbay/catalog.json, as any earlier session would.
      const first = await connectStdio(config);
      const listed = await first.client.listTools();
      expect(listed.tools.map((t) => t.name)).toContain("primary__echo");
      await first.close();
      await turn(bin, dir, home, extra);
      await turn(bin, dir, home, extra);
    }, 400_000);

    it(`${label} client: serve --http with a bearer header`, async () => {
      const { dir, config, home } = project();
      const serve = await startHttpServe(config, { PATCHBAY_TOKEN: "real-client-token-5521" });
      try {
        writeFileSync(
          path.join(dir, ".mcp.json"),
          JSON.stringify({
            mcpServers: {
              patchbay: {
                type: "http",
                url: serve.url,
                headers: { Authorization: `Bearer ${serve.token}` },
                alwaysLoad: true,
              },
            },
          }),
        );
        // The server is up and booted before the client starts, as a long-running server is.
        const probe = await serve.connect();
        expect((await probe.listTools()).tools.map((t) => t.name)).toContain("primary__echo");
        await probe.close();
        await turn(bin, dir, home, extra);
      } finally {
        await serve.stop();
      }
    }, 400_000);
  }
});
