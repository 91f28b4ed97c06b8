/**
 * mcp-remote's own path for a stdio tools/call (direct-requests.ts), through a real host with
 * "isolation": "host", against a hand-written stdio server (tests/fixtures/mcp/raw-server.mjs)
 * that logs every line it reads and can answer wrongly on purpose: the answers, errors,
 * cancellations and losses are those the SDK Client's path gave, and a server cannot make one
 * call take another's answer.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootMcp, type TestHost, until } from "./_host.js";

const RAW = fileURLToPath(new URL("../fixtures/mcp/raw-server.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "pb-mcp-direct-"));
const LOG = join(dir, "server.log");
let t: TestHost;

beforeAll(async () => {
  t = await bootMcp({
    raw: {
      plugin: "mcp-remote",
      isolation: "host",
      timeout_ms: 30_000,
      config: { command: "node", args: [RAW], env: { LOG_FILE: LOG } },
    },
  });
});
afterAll(async () => {
  await t?.host.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A line the server read: a request, a notification or an answer. */
interface Line {
  id?: string | number;
  method?: string;
  params?: { name?: string; requestId?: unknown };
}

interface Seen {
  id: string | number;
  token: string | number | null;
  text: string;
}

const call = (tool: string, args: Record<string, unknown> = {}, opts: Record<string, unknown> = {}) =>
  t.host.call("mcpConnectors/raw", "call", [tool, args], opts) as Promise<{ content: { text: string }[] }>;
const seen = async (p: ReturnType<typeof call>): Promise<Seen> => JSON.parse((await p).content[0].text) as Seen;
/** The lines the server read, parsed. */
const serverRead = (): Line[] =>
  existsSync(LOG)
    ? readFileSync(LOG, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line)
    : [];
const callsOf = (tool: string) => serverRead().filter((m) => m.method === "tools/call" && m.params?.name === tool);
const cancelled = (id: unknown) =>
  serverRead().some((m) => m.method === "notifications/cancelled" && m.params?.requestId === id);

describe("mcp-remote's direct path for a stdio tools/call", () => {
  it("sends the call with an id and progressToken of its own (strings: the SDK Client's are numbers)", async () => {
    const s = await seen(call("echo", { text: "hi" }));
    expect(s.text).toBe("hi");
    expect(s.id).toMatch(/^pb:\d+$/);
    expect(s.token).toBe(s.id);
  });

  it("a malformed result fails as the result schema fails it", async () => {
    await expect(call("malformed")).rejects.toMatchObject({
      code: "PB_ERR_PLUGIN_THREW",
      message: expect.stringContaining("expected array"),
    });
  });

  it("a JSON-RPC error keeps its code and message", async () => {
    await expect(call("error")).rejects.toMatchObject({
      code: "PB_ERR_UPSTREAM_RPC",
      data: { rpcCode: -32602, rpcMessage: "bad arguments: x is required" },
    });
  });

  it("an answer for an id the server was never sent does not reach the call that later gets that id", async () => {
    expect((await seen(call("forge-next"))).text).toBe("real");
    const next = await seen(call("echo", { text: "mine" }));
    expect(next.text).toBe("mine");
    const forgedFor = callsOf("forge-next").at(-1)!.id as string;
    expect(Number(next.id.toString().slice(3))).toBe(Number(forgedFor.slice(3)) + 1);
    await t.waitLog((r) => /unknown message ID.*forged/.test(String(r.error)), "the forged answer reported as unknown");
  });

  it("a second answer to the same id is dropped, and the next call gets its own", async () => {
    expect((await seen(call("duplicate"))).text).toBe("first");
    expect((await seen(call("echo", { text: "own" }))).text).toBe("own");
    await t.waitLog((r) => /unknown message ID.*second/.test(String(r.error)), "the duplicate reported as unknown");
  });

  it("a server request during a call (even with an id shaped like ours) is answered by the SDK Client", async () => {
    expect((await seen(call("ping-back"))).text).toBe("pong {}");
  });

  it("progress for the call reaches the caller; progress the schema refuses does not", async () => {
    const updates: unknown[] = [];
    const s = await seen(call("progress", {}, { onProgress: (u: unknown) => updates.push(u) }));
    expect(s.text).toBe("done");
    expect(updates).toEqual([{ progress: 1, total: 2, message: "half" }]);
  });

  it("concurrent calls, answered out of order, each get their own answer beside SDK-path requests", async () => {
    const texts = ["a", "b", "c", "d"];
    const calls = texts.map((text, i) => seen(call("delay", { ms: 20 * (texts.length - i), text })));
    const lists = [1, 2].map(() => t.host.call("mcpConnectors/raw", "list_tools", []));
    const health = t.host.call("mcpConnectors/raw", "health_check", []);
    expect((await Promise.all(calls)).map((s) => s.text)).toEqual(texts);
    for (const tools of await Promise.all(lists)) expect(tools).toEqual(expect.arrayContaining([expect.anything()]));
    expect(await health).toBe(true);
  });

  it("a call past its deadline is PB_ERR_CALL_TIMEOUT and the server hears notifications/cancelled for its id", async () => {
    await expect(call("slow", {}, { timeoutMs: 400 })).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
    const id = callsOf("slow").at(-1)!.id;
    await until(() => cancelled(id), "the server to read notifications/cancelled for the call");
    expect((await seen(call("echo", { text: "still" }))).text).toBe("still");
  });

  it("a call its caller withdraws is PB_ERR_CALL_CANCELLED and the server hears notifications/cancelled", async () => {
    const caller = new AbortController();
    const before = callsOf("slow").length;
    const pending = call("slow", {}, { signal: caller.signal });
    await until(() => callsOf("slow").length > before, "the call to reach the server");
    caller.abort();
    await expect(pending).rejects.toMatchObject({ code: "PB_ERR_CALL_CANCELLED" });
    const id = callsOf("slow").at(-1)!.id;
    await until(() => cancelled(id), "the server to read notifications/cancelled for the call");
  });

  it("a server that dies mid-call fails the call as lost, runs it once only, and the next call reconnects", async () => {
    await expect(call("die")).rejects.toMatchObject({
      code: "PB_ERR_SUBSTRATE_UNAVAILABLE",
      message: expect.stringMatching(/tools\/call "die".*lost while the request was in flight; not retried/),
    });
    expect(callsOf("die")).toHaveLength(1);
    const s = await seen(call("echo", { text: "back" }));
    expect(s.text).toBe("back");
    expect(s.id).toBe("pb:0"); // a new session, so a new server: its ids start again
  });
});
