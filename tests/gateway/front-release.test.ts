/**
 * When `serve --mcp`'s head start lets the CLI load. It holds the load while the client may still
 * ask for a list it answers from the cache (the load blocks the event loop), and no longer: a
 * request only the gateway can answer (a tools/call, a ping) releases it at once, or the call
 * waits out the hold's timer before the gateway has even started to boot. The timer is faked and
 * never fires here, so a release seen is one the client's own messages caused (no clock read).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { frontStamp, startFront, stampKey, takeFront } from "../../src/gateway/stdio-front.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

/** A config whose catalog.json holds head-start answers offering tools, prompts and resources. */
function cachedConfig(threads?: unknown): string[] {
  const dir = tempDir("pb-front-release-");
  const file = path.join(dir, "connectors.json");
  const text = JSON.stringify({ plugins: [], mcpConnectors: {} });
  writeFileSync(file, text);
  const state = path.join(dir, ".patchbay");
  mkdirSync(state, { recursive: true });
  const key = stampKey(state, true)!;
  const front = {
    stamp: frontStamp(file, text, {}, key),
    protocolVersions: ["2025-06-18"],
    initialize: {
      capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} },
      serverInfo: { name: "patchbay", version: "0" },
    },
    tools: [{ name: "gw__echo", inputSchema: { type: "object" } }],
    ...(threads === undefined ? {} : { threads }),
  };
  writeFileSync(path.join(state, "catalog.json"), JSON.stringify({ front }));
  return ["serve", "--mcp", "--config", file];
}

const line = (msg: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`;
const initialize = line({
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const initialized = line({ method: "notifications/initialized" });
const call = line({ id: 1, method: "tools/call", params: { name: "gw__echo", arguments: { text: "hi" } } });

/** A head start on pipes of its own; `released()` says whether it has let the CLI load. */
function front(threads?: unknown) {
  const input = new PassThrough();
  const output = new PassThrough();
  let released = false;
  let warm: number | null = null;
  const answers: { id?: unknown; result?: Record<string, unknown> }[] = [];
  let buf = "";
  output.on("data", (d: Buffer) => {
    buf += d.toString();
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      answers.push(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
    }
  });
  void startFront(cachedConfig(threads), {}, { input, output }).then((n) => {
    released = true;
    warm = n;
  });
  /** Writes `text`, then lets the stream and the promise callbacks run. */
  const send = async (text: string) => {
    input.write(text);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  };
  return { send, released: () => released, warm: () => warm, answers, input };
}

/** What the head start hands the gateway, as the lines it would read. */
async function handedOver(): Promise<{ method?: string; id?: unknown }[]> {
  const streams = takeFront();
  expect(streams).not.toBeNull();
  let text = "";
  streams!.input.on("data", (d: Buffer) => (text += d.toString()));
  await new Promise((r) => setImmediate(r));
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout"] });
});
afterEach(() => {
  takeFront();
  vi.useRealTimers();
});

describe("serve --mcp's head start lets the CLI load", () => {
  it("as soon as the client sends a tools/call, even before it asked for any list", async () => {
    const f = front();
    await f.send(initialize + initialized);
    expect(f.answers.map((a) => a.id)).toEqual([0]);
    expect(f.released(), "initialize alone: the client's lists may follow").toBe(false);
    await f.send(call);
    expect(f.released(), "the call waits for the gateway: the load must not").toBe(true);
    // The gateway still gets everything in order: the replayed initialize, then what followed it.
    const lines = await handedOver();
    expect(lines.map((l) => l.method)).toEqual(["initialize", "notifications/initialized", "tools/call"]);
    expect(lines[2].id).toBe(1);
  });

  it("when a ping waits for its answer", async () => {
    const f = front();
    await f.send(initialize + initialized);
    await f.send(line({ id: 7, method: "ping" }));
    expect(f.released()).toBe(true);
  });

  it("when a line it cannot read arrives (the gateway answers its parse error)", async () => {
    const f = front();
    await f.send(initialize);
    await f.send("{not json\n");
    expect(f.released()).toBe(true);
  });

  it("not while the client may still ask for a list it answers itself, then once every list is answered", async () => {
    const f = front();
    await f.send(initialize + initialized + line({ id: "t", method: "tools/list" }));
    expect(f.answers.find((a) => a.id === "t")?.result).toEqual({
      tools: [{ name: "gw__echo", inputSchema: { type: "object" } }],
    });
    await f.send(line({ method: "notifications/roots/list_changed" }));
    expect(f.released(), "a notification awaits no answer").toBe(false);
    await f.send(line({ id: "p", method: "prompts/list" }) + line({ id: "r", method: "resources/list" }));
    expect(f.released()).toBe(true);
    expect((await handedOver()).map((l) => l.method)).toEqual([
      "initialize",
      "notifications/initialized",
      "notifications/roots/list_changed",
    ]);
  });

  it("and says how many threads the last boot started, to warm meanwhile (none from a file without, at most 4)", async () => {
    for (const [kept, warm] of [
      [undefined, 0],
      [2, 2],
      [64, 4],
      [-1, 0],
      ["3", 0],
      [1.5, 0],
    ] as const) {
      const f = front(kept);
      await f.send(initialize + call);
      expect(f.warm(), `threads: ${JSON.stringify(kept)}`).toBe(warm);
      takeFront();
    }
  });
});
