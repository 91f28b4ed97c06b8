/**
 * Batching per tick: calls issued in one turn leave as one message, results settled
 * in one turn come back as one, and none of the boundary's rules change: a call or a result that
 * cannot be cloned fails alone, order holds, a hostile worker's batch is checked entry by entry
 * (thread, process and group mode), and nothing it sends throws in the host.
 */
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { RpcClient } from "../../src/rpc/client.js";
import { portTransport } from "../../src/rpc/transport.js";
import { checkBatch, checkBatchEntry } from "../../src/contract/rpc-check.js";
import { EAGER_BATCH, MAX_BATCH } from "../../src/contract/rpc.js";
import { cleanupTempDirs, logSink, writeConfig } from "../helpers.js";

const hosts: Host[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  cleanupTempDirs();
});

describe("the batch envelope and its entries", () => {
  it.each([
    [{ t: "batch", msgs: "x" }],
    [{ t: "batch", msgs: null }],
    [{ t: "batch" }],
    [{ t: "batch", msgs: [] }],
    [{ t: "batch", msgs: new Array(MAX_BATCH + 1).fill(null) }],
  ])("refuses %# as a whole", (raw) => {
    const r = checkBatch(raw as { t: "batch"; msgs: unknown });
    expect(r.ok).toBe(false);
  });

  it("accepts only results as entries, each checked as a lone message", () => {
    expect(checkBatchEntry({ t: "result", id: 1, ok: true, value: 1 }).ok).toBe(true);
    for (const bad of [
      null,
      { t: "log", level: "info", msg: "x" },
      { t: "progress", id: 1, progress: 1 },
      { t: "batch", msgs: [] },
      { t: "result", id: "1", ok: true },
    ]) {
      const r = checkBatchEntry(bad);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.why).toMatch(/^a batch entry/);
    }
  });
});

/** An RpcClient on a real MessageChannel; the test plays the worker on the other port with raw messages. */
function clientOnPort() {
  const { port1, port2 } = new MessageChannel();
  const malformed: string[] = [];
  const client = new RpcClient(portTransport(port1), {
    instance: "t/x",
    graceMs: 100,
    onMessage: () => undefined,
    onStuck: () => undefined,
    onClose: () => undefined,
    onMalformed: (why) => void malformed.push(why),
  });
  const received: unknown[] = [];
  port2.on("message", (m) => received.push(m));
  return {
    client,
    worker: port2 as MessagePort,
    received,
    malformed,
    close: () => {
      port1.close();
    },
  };
}
// Calls a test never answers expire at their deadline once the file runs long enough (a loaded machine): not an error of the test.
const ignore = () => undefined;
const tick = () => new Promise((r) => setTimeout(r, 20));
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 1_500 && !ok(); i++) await tick();
}

describe("RpcClient on a real port", () => {
  const open: (() => void)[] = [];
  afterEach(() => {
    for (const c of open.splice(0)) c();
  });

  it("sends the first call of a turn at once and the rest of the turn as one batch, in order", async () => {
    const c = clientOnPort();
    open.push(c.close);
    c.client.call("a", [1], 5_000).catch(ignore);
    await until(() => c.received.length === 1);
    expect(c.received).toEqual([expect.objectContaining({ t: "call", id: 1, method: "a" })]);
    for (const m of ["b", "c", "d"]) c.client.call(m, [], 5_000).catch(ignore);
    c.client.post({ t: "close" });
    await until(() => c.received.length === 4);
    expect(c.received.slice(1)).toEqual([
      expect.objectContaining({ t: "call", id: 2, method: "b" }),
      { t: "batch", msgs: ["c", "d"].map((method, i) => expect.objectContaining({ t: "call", id: i + 3, method })) },
      { t: "close" },
    ]);
  });

  it("posts a full batch at once (EAGER_BATCH), so the worker starts while the host still issues calls", async () => {
    const c = clientOnPort();
    open.push(c.close);
    const n = EAGER_BATCH * 2 + 3;
    for (let i = 0; i < n; i++) c.client.call("m", [i], 5_000).catch(ignore);
    await until(() => c.received.length === 4);
    const entries = (m: unknown) =>
      (m as { t: string }).t === "batch" ? (m as { msgs: { id: number }[] }).msgs : [m as { id: number }];
    expect(c.received.map((m) => entries(m).length)).toEqual([1, EAGER_BATCH, EAGER_BATCH, 2]);
    const ids = c.received.flatMap((m) => entries(m).map((x) => x.id));
    expect(ids).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  });

  it("fails only the call whose arguments cannot be cloned; its neighbours still leave", async () => {
    const c = clientOnPort();
    open.push(c.close);
    const good1 = c.client.call("a", [1], 5_000);
    const bad = c.client.call("b", [() => 1], 5_000);
    const good2 = c.client.call("c", [2], 5_000);
    await expect(bad).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_ARGS" });
    await until(() => c.received.length === 2);
    expect(c.received.map((m) => (m as { method: string }).method)).toEqual(["a", "c"]);
    c.worker.postMessage({
      t: "batch",
      msgs: [
        { t: "result", id: 1, ok: true, value: "one" },
        { t: "result", id: 3, ok: true, value: "three" },
      ],
    });
    await expect(Promise.all([good1, good2])).resolves.toEqual(["one", "three"]);
  });

  it("settles the good entries of a worker's batch and drops each bad one as malformed", async () => {
    const c = clientOnPort();
    open.push(c.close);
    const calls = [c.client.call("a", [], 5_000), c.client.call("b", [], 5_000), c.client.call("c", [], 5_000)];
    c.worker.postMessage({
      t: "batch",
      msgs: [
        { t: "result", id: 1, ok: true, value: { v: 1 } },
        { t: "log", level: "info", msg: "smuggled" },
        null,
        { t: "batch", msgs: [{ t: "result", id: 2, ok: true }] },
        { t: "result", id: 3, ok: true, value: { big: 1n } },
      ],
    });
    await expect(calls[0]).resolves.toEqual({ v: 1 });
    await expect(calls[2]).rejects.toMatchObject({ code: "PB_ERR_CONTRACT_BIGINT" });
    expect(c.malformed).toHaveLength(3);
    expect(c.client.inflight).toBe(1);
    c.client.rejectAll(new Error("done") as never);
    await expect(calls[1]).rejects.toThrow("done");
  });

  it("expires each call at its own deadline (the wheel reads the pending calls), cancels it in the worker, and leaves a settled one alone", async () => {
    const c = clientOnPort();
    open.push(c.close);
    // The gaps are wide on purpose: a busy machine can stall this process for a good part of a
    // second, and a 60 ms "answered" deadline then passed before the answer's message was read,
    // or both deadlines passed in one stall. "answered" is settled long before its deadline, which
    // passes with late's: the wheel must send no cancel for it.
    const late = c.client.call("late", [], 3_000);
    const early = c.client.call("early", [], 60);
    const answered = c.client.call("answered", [], 3_000);
    c.worker.postMessage({ t: "result", id: 3, ok: true, value: "yes" });
    await expect(answered).resolves.toBe("yes");
    await expect(early).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT", data: { method: "early" } });
    expect(c.client.inflight).toBe(1);
    await expect(late).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT", data: { method: "late" } });
    await until(() => c.received.filter((m) => (m as { t: string }).t === "cancel").length === 2);
    expect(c.received.filter((m) => (m as { t: string }).t === "cancel").map((m) => (m as { id: number }).id)).toEqual([
      2, 1,
    ]);
  });

  it("sends nothing for calls still queued when every call is rejected", async () => {
    const c = clientOnPort();
    open.push(c.close);
    const first = c.client.call("a", [], 5_000);
    const queued = c.client.call("b", [], 5_000);
    c.client.rejectAll(new Error("gone") as never);
    await expect(first).rejects.toThrow("gone");
    await expect(queued).rejects.toThrow("gone");
    await tick();
    await tick();
    expect(c.received).toEqual([expect.objectContaining({ t: "call", method: "a" })]);
  });
});

type Mode = "thread" | "process" | "group";
const MODES: Mode[] = ["thread", "process", "group"];
const modeConfig = (mode: Mode) => (mode === "group" ? { worker: "batch-test" } : { isolation: mode });

describe.each(MODES)("64 calls in one turn in %s mode", (mode) => {
  it("all settle, each with its own answer; an uncloneable result or argument fails alone", async () => {
    const { file } = writeConfig({
      memoryStores: { liar: { plugin: "fx-liar", ...modeConfig(mode) } },
      mcpConnectors: { echo: { plugin: "fx-echo", ...modeConfig(mode) } },
    });
    const host = await createHost({ config: file, logLevel: "silent" });
    hosts.push(host);
    const echoes = Array.from({ length: 64 }, (_, i) =>
      host.mcp("echo").call("echo", i === 17 ? { text: String(i), fn: () => i } : { text: String(i) }),
    );
    const settled = await Promise.allSettled(echoes);
    settled.forEach((s, i) => {
      if (i === 17) expect(s).toMatchObject({ status: "rejected", reason: { code: "PB_ERR_CONTRACT_ARGS" } });
      else expect(s).toMatchObject({ status: "fulfilled", value: { text: String(i) } });
    });
    const queries = Array.from({ length: 64 }, (_, i) =>
      host.memory("liar").query({ query: i === 40 ? "function" : "fine", limit: 2, mode: "fts" }),
    );
    const results = await Promise.allSettled(queries);
    results.forEach((s, i) => {
      if (i === 40) expect(s).toMatchObject({ status: "rejected", reason: { code: "PB_ERR_CONTRACT_VIOLATION" } });
      else expect(s).toMatchObject({ status: "fulfilled", value: [{ id: "m1", summary: "memory 1" }] });
    });
  });
});

describe.each(["thread", "process", "group"] as Mode[])("a hostile worker's batches in %s mode", (mode) => {
  it("are checked entry by entry: bad ones are dropped and counted, the host keeps serving", async () => {
    const sink = logSink();
    const { file } = writeConfig({
      mcpConnectors: { h: { plugin: "fx-hostile", timeout_ms: 5_000, ...modeConfig(mode) } },
    });
    const host = await createHost({ config: file, graceMs: 300, logLevel: "debug", logDestination: sink.stream });
    hosts.push(host);
    const batches = [
      { t: "batch", msgs: "not a list" },
      { t: "batch", msgs: new Array(MAX_BATCH + 1).fill(null) },
      {
        t: "batch",
        msgs: [
          { t: "log", level: "error", msg: "smuggled-line-9c1" },
          { t: "batch", msgs: [] },
          null,
          { t: "result", id: 424242, ok: true, value: 1 },
        ],
      },
    ];
    await expect(host.mcp("h").call("malformed", { messages: batches })).resolves.toEqual({ sent: 3 });
    const dropped = () =>
      sink.lines.filter((l) => l.includes("dropped a malformed message") && l.includes("mcpConnectors/h"));
    // Two whole batches, three bad entries; the result for an unknown call is valid and ignored.
    expect(dropped()).toHaveLength(5);
    expect(dropped().some((l) => l.includes("only results may be batched"))).toBe(true);
    expect(sink.text()).not.toContain('"smuggled-line-9c1"');
    await expect(host.mcp("h").call("pid", {})).resolves.toHaveProperty("pid");
    // A batch of ten bad entries counts ten: the worker is restarted as misbehaving.
    const err = await host
      .mcp("h")
      .call("malformed", { messages: [{ t: "batch", msgs: new Array(10).fill({ t: "zzz" }) }] })
      .catch((e: Error) => e);
    expect(err).toMatchObject({ code: "PB_ERR_PLUGIN_MISBEHAVING" });
    await expect(host.mcp("h").call("pid", {})).resolves.toHaveProperty("pid");
  });
});
