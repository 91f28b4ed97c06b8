/**
 * What a client sends while `serve --mcp`'s head start answers for it (before the CLI has loaded)
 * reaches the gateway as it was sent: a request cut inside a UTF-8 character between two reads
 * arrives whole; and a line over the gateway's bound ends the connection there as it would after
 * the start, and says why. The head start holds everything it does not answer until the gateway
 * takes over, and a line cut in two is not a request yet: both halves meet the head start's reader.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cleanupTempDirs } from "../helpers.js";
import { childEnv, connectStdio, gatewayConfig } from "./_gateway.js";

afterAll(cleanupTempDirs);

/** A config whose last boot left a catalog, so the next `serve --mcp` starts with the head start. */
async function withCatalog(): Promise<{ file: string; dir: string }> {
  const { file, dir } = gatewayConfig();
  const first = await connectStdio(file);
  expect((await first.client.listTools()).tools.map((t) => t.name)).toContain("gw__echo");
  await first.close();
  return { file, dir };
}

function serve(file: string, dir: string) {
  const proc = spawn(process.execPath, [BIN, "serve", "--mcp", "--config", file], {
    cwd: dir,
    env: childEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  }) as ChildProcessWithoutNullStreams;
  const replies = new Map<unknown, { result?: unknown; error?: unknown }>();
  const waiters: (() => void)[] = [];
  let buf = "";
  proc.stdout.on("data", (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const msg = JSON.parse(buf.slice(0, nl)) as { id?: unknown; result?: unknown; error?: unknown };
      buf = buf.slice(nl + 1);
      if (msg.id !== undefined) replies.set(msg.id, msg);
      for (const w of waiters.splice(0)) w();
    }
  });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const reply = async (id: unknown) => {
    while (!replies.has(id)) await new Promise<void>((r) => waiters.push(r));
    return replies.get(id)!;
  };
  const write = (text: string | Buffer) => proc.stdin.write(text);
  const initialize = () =>
    write(
      `${JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "front", version: "1" } },
      })}\n`,
    );
  const lists = () => {
    write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    for (const [id, method] of [
      ["t", "tools/list"],
      ["p", "prompts/list"],
      ["r", "resources/list"],
    ])
      write(`${JSON.stringify({ jsonrpc: "2.0", id, method })}\n`);
  };
  return { proc, reply, write, initialize, lists, stderr: () => stderr, replies };
}

describe("serve --mcp's head start passes on what the client sent", () => {
  it("a call cut inside a UTF-8 character between two reads is answered with its text whole", async () => {
    const { file, dir } = await withCatalog();
    const s = serve(file, dir);
    try {
      s.initialize();
      expect((await s.reply(0)).result).toMatchObject({ serverInfo: { name: "patchbay" } });
      const text = "日本語 ✓ 🚀 ünïcödé";
      const call = Buffer.from(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "gw__echo", arguments: { text } } })}\n`,
      );
      const inside = call.indexOf(Buffer.from("🚀")) + 2;
      s.write(call.subarray(0, inside));
      // Two reads, not one: the head start must hold the first half until the rest comes.
      await new Promise((r) => setTimeout(r, 200));
      s.write(call.subarray(inside));
      s.lists();
      expect((await s.reply(1)).result).toEqual({ content: [{ type: "text", text }] });
    } finally {
      s.proc.stdin.end();
      await once(s.proc, "exit");
    }
  }, 90_000);

  it("a line over 64 MiB ends the connection, and serve says why", async () => {
    const { file, dir } = await withCatalog();
    const s = serve(file, dir);
    const exited = once(s.proc, "exit");
    s.proc.stdin.on("error", () => undefined); // the pipe may close under the rest of the line
    s.initialize();
    expect((await s.reply(0)).result).toMatchObject({ serverInfo: { name: "patchbay" } });
    // No lists asked: the head start still holds the input, so it meets the long line itself.
    const piece = Buffer.alloc(1024 * 1024, "a");
    for (let i = 0; i < 65 && s.proc.exitCode === null; i++) {
      if (!s.write(piece)) await Promise.race([once(s.proc.stdin, "drain"), exited]);
    }
    // Not a word more, and stdin stays open: serve ends on its own.
    const [code] = await exited;
    expect(code).toBe(0);
    expect(s.stderr()).toContain("the MCP client sent a line longer than 64 MiB, which serve does not read");
  }, 90_000);
});
