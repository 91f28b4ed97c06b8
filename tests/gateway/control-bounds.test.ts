/**
 * The control socket against a peer without the key (a process-isolated plugin can connect):
 * what it may hold (64 KiB a line until the key shows, 64 such connections, the oldest closed for
 * a new one, each for at most the request deadline), while our own clients, which send the key
 * first, keep their full 4 MiB line and always get in.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { askServer, type ControlServer, KEY_NAME, SOCKET_NAME, startControl } from "../../src/gateway/control.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

let server: ControlServer | null = null;
const opened: net.Socket[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) s.destroy();
  await server?.close();
  server = null;
});

async function start(requestMs?: number) {
  const dir = tempDir("pb-ctl-");
  const seen: Record<string, unknown>[] = [];
  server = await startControl(
    dir,
    async (req) => {
      seen.push(req);
      return { op: req.op, size: JSON.stringify(req).length };
    },
    { requestMs },
  );
  const stateDir = path.dirname(server.path);
  return { dir: stateDir, key: readFileSync(path.join(stateDir, KEY_NAME), "utf8").trim(), seen };
}

/** A raw peer: writes `text` (in pieces of `piece` bytes), and resolves with what came back once the server closed. */
function peer(dir: string, text: string, piece = Infinity) {
  const conn = net.createConnection({ path: path.join(dir, SOCKET_NAME), allowHalfOpen: true });
  opened.push(conn);
  let answer = "";
  conn.setEncoding("utf8");
  conn.on("data", (d: string) => (answer += d));
  conn.on("error", () => undefined);
  // The server's end of it closed: this end stays open (allowHalfOpen), as a hostile peer's would.
  const closed = new Promise<string>((resolve) => {
    conn.on("end", () => resolve(answer));
    conn.on("close", () => resolve(answer));
  });
  conn.on("connect", async () => {
    for (let at = 0; at < text.length; at += piece) {
      if (conn.destroyed) return;
      if (!conn.write(text.slice(at, at + piece))) await new Promise((r) => conn.once("drain", r));
    }
  });
  return { conn, closed };
}

const connected = (c: net.Socket) =>
  new Promise<void>((resolve) => (c.readyState === "open" ? resolve() : c.once("connect", () => resolve())));

describe("the control socket's bounds", () => {
  it("refuses a line over 64 KiB that does not start with the key, and closes it", async () => {
    const { dir } = await start();
    const answer = await peer(dir, `{"op":"status","pad":"${"x".repeat(70 * 1024)}"}\n`).closed;
    expect(JSON.parse(answer)).toMatchObject({ ok: false, error: { code: "PB_ERR_USAGE" } });
    expect(answer).toContain("too long");
  });

  it("takes a 1 MiB request that starts with the key, even in 1 KiB pieces", async () => {
    const { dir, key, seen } = await start();
    const pad = "y".repeat(1024 * 1024);
    const answer = await peer(dir, `${JSON.stringify({ key, op: "call", pad })}\n`, 1024).closed;
    expect(JSON.parse(answer)).toMatchObject({ ok: true, value: { op: "call" } });
    expect(seen[0]).toEqual({ op: "call", pad });
  });

  it("askServer (patchbay status and call) sends the key first: a 1 MiB call goes through", async () => {
    const { dir, seen } = await start();
    const pad = "z".repeat(1024 * 1024);
    const answer = await askServer(dir, { op: "call", pad });
    expect(answer).toMatchObject({ ok: true, value: { op: "call" } });
    expect(seen[0]).toEqual({ op: "call", pad });
  });

  it("keeps at most 64 connections without the key: a new one closes the oldest, and the operator gets in", async () => {
    const { dir } = await start();
    const idle = Array.from({ length: 80 }, () => peer(dir, ""));
    for (const p of idle) await connected(p.conn);
    // The first 16 are closed for the later ones, without an answer; the last 64 stay open.
    await Promise.all(idle.slice(0, 16).map((p) => p.closed));
    expect(idle.slice(16).filter((p) => p.conn.readableEnded)).toHaveLength(0);
    const status = await askServer(dir, { op: "status" });
    expect(status).toMatchObject({ ok: true, value: { op: "status" } });
    // Its connection took the place of the oldest one still open.
    expect(await idle[16].closed).toBe("");
  });

  it("closes a connection whose request has not arrived within the deadline", async () => {
    const { dir } = await start(200);
    const half = peer(dir, '{"op":"sta');
    expect(await half.closed).toBe("");
  });

  it("closes a refused connection after its answer even when the peer keeps its end open", async () => {
    const { dir } = await start();
    const answer = await peer(dir, `${JSON.stringify({ key: "not-the-key", op: "status" })}\n`).closed;
    expect(JSON.parse(answer)).toMatchObject({ ok: false, error: { code: "PB_ERR_CONTROL_UNAUTHORIZED" } });
  });
});
