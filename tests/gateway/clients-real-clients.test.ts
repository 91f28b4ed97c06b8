/**
 * What real MCP clients show a gateway client outside its policy, against a live `serve --http` on
 * 127.0.0.1: the MCP Inspector CLI and npm `mcp-remote` (installed by .ci/mcp-clients.sh, run with
 * Node >= 22). The Inspector lists only the client's tools and, asked for another, says it does not
 * exist; mcp-remote passes on Patchbay's coded refusal naming the client, and nothing of another
 * client's policy.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, tempDir } from "../helpers.js";
import { gatewayConfig, startHttpServe, type HttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const NODE22 = process.env.PATCHBAY_NODE22;
const INSPECTOR = process.env.PATCHBAY_INSPECTOR_CLI;
const MCP_REMOTE = process.env.PATCHBAY_MCP_REMOTE;
if (!NODE22 || !INSPECTOR || !MCP_REMOTE)
  console.log(
    "skipping the Inspector CLI / mcp-remote client-policy tests: PATCHBAY_NODE22, PATCHBAY_INSPECTOR_CLI or PATCHBAY_MCP_REMOTE is not set (run .ci/mcp-clients.sh)",
  );

const BOT = "bot-token-0123456789abcdef";
const OTHER = "other-token-0123456789abcdef";
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

let serve: HttpServe;
beforeAll(async () => {
  if (!NODE22 || !INSPECTOR || !MCP_REMOTE) return;
  const clients = {
    bot: { tokenSha256: sha(BOT), expose: { "mcpConnectors/gw": ["echo"] } },
    "secret-team": { tokenSha256: sha(OTHER), expose: { "mcpConnectors/gw": ["whoami"] } },
  };
  serve = await startHttpServe(gatewayConfig({ gateway: { clients } }).file, {
    PATCHBAY_TOKEN: "operator-token-0123456789",
  });
}, 60_000);
afterAll(async () => {
  await serve?.stop();
});

/**
 * Runs a client to its end in a home of its own. `lines`: JSON-RPC messages for a stdio bridge,
 * written one after the other, each once the answer to the one before arrived (mcp-remote
 * forwards what it reads at once: a call written before initialize was answered reaches the
 * server uninitialized). The bridge stays up, so it is stopped once the last request is answered.
 */
function run(args: string[], lines: Record<string, unknown>[] = []): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const home = tempDir("pb-client-policy-");
    const child = spawn(NODE22!, args, {
      cwd: home,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, MCP_INSPECTOR_SECRET_STORE: "memory" },
    });
    let out = "";
    let next = 0;
    const send = () => {
      // Notifications get no answer: write them with the request that follows.
      while (next < lines.length) {
        const line = lines[next++];
        child.stdin.write(`${JSON.stringify(line)}\n`);
        if ("id" in line) return;
      }
    };
    const answered = (id: unknown) => out.split("\n").some((l) => l.startsWith("{") && l.includes(`"id":${id}`));
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const last = lines.findLast((l) => "id" in l);
      if (last && answered(last.id)) child.kill("SIGTERM");
      else if (next > 0 && answered(lines.slice(0, next).findLast((l) => "id" in l)?.id)) send();
    });
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
    if (lines.length > 0) send();
    else child.stdin.end();
  });
}

describe.runIf(NODE22 && INSPECTOR && MCP_REMOTE)("a client outside its policy, as real MCP clients show it", () => {
  const bearer = ["--header", `Authorization: Bearer ${BOT}`];

  it("the Inspector CLI lists only the client's tools and finds no other", async () => {
    const list = await run([
      INSPECTOR!,
      "--cli",
      serve.url,
      "--transport",
      "http",
      "--method",
      "tools/list",
      ...bearer,
    ]);
    expect(list.code, list.out).toBe(0);
    expect(list.out).toContain("gw__echo");
    expect(list.out).not.toContain("gw__whoami");
    const call = await run([
      INSPECTOR!,
      "--cli",
      serve.url,
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "gw__whoami",
      ...bearer,
    ]);
    expect(call.code, call.out).not.toBe(0);
    expect(call.out).toContain("not found");
  }, 200_000);

  it("mcp-remote passes on the coded refusal, naming this client and no other", async () => {
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "gw__whoami", arguments: {} } },
    ];
    const r = await run([MCP_REMOTE!, serve.url, "--transport", "http-only", ...bearer], lines);
    const answer = r.out
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map(
        (l) =>
          JSON.parse(l) as { id?: number; error?: { code: number; message: string; data: Record<string, unknown> } },
      )
      .find((m) => m.id === 2);
    expect(answer?.error, r.out).toMatchObject({
      code: -32003,
      data: { code: "PB_ERR_CLIENT_FORBIDDEN", client: "bot" },
    });
    expect(answer?.error?.message).toContain('Client "bot" may not use tool "gw__whoami"');
    expect(r.out).not.toContain("secret-team");
    expect(r.out).not.toContain(BOT);
  }, 200_000);
});
