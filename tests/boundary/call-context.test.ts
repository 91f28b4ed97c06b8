// A plugin defined with callContext "sync" finds its call through the handle it took when its
// method started (ctx.currentCall()): deadline, cancellation and progress reach that call after
// its awaits, while ctx itself answers as outside a call there (the runtime does not track the
// call across awaits for it). Real worker threads, real deadlines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, logSink, writeConfig } from "../helpers.js";

let host: Host;
const sink = logSink();

beforeAll(async () => {
  const { file } = writeConfig({
    mcpConnectors: { sync: { plugin: "fx-sync-call", timeout_ms: 1_500 } },
  });
  host = await createHost({ config: file, logDestination: sink.stream, logLevel: "debug" });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

describe('callContext "sync"', () => {
  it("sees its call while the method runs synchronously, and only through the handle after an await", async () => {
    const result = (await host.mcp("sync").call("where", {})) as Record<string, Record<string, unknown>>;
    expect(result.before).toMatchObject({ signalIsCall: true });
    expect(result.before.remainingMs).toBeGreaterThan(0);
    expect(result.before.remainingMs).toBeLessThanOrEqual(1_500);
    expect(result.after).toEqual({ currentCall: null, signalIsInstance: true, remainingMsFinite: false });
    expect(result.handle.deadlineFinite).toBe(true);
    expect(result.handle.left).toBeGreaterThan(0);
  });

  it("aborts the kept handle's signal when the call passes its deadline", async () => {
    await expect(host.mcp("sync").call("wait", {})).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
    await sink.waitFor("the kept handle's signal aborted");
  });

  it("aborts the kept handle's signal when the caller withdraws the call", async () => {
    const caller = new AbortController();
    const pending = host.call("mcpConnectors/sync", "call", ["wait", {}], { signal: caller.signal });
    setTimeout(() => caller.abort(new Error("changed my mind")), 50);
    await expect(pending).rejects.toBeDefined();
    await expect.poll(() => sink.lines.filter((l) => l.includes("the kept handle's signal aborted")).length).toBe(2);
  });

  it("runs the kept handle's onAbort (and says aborted) when the call passes its deadline, without its signal", async () => {
    await expect(host.mcp("sync").call("wait-light", {})).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
    await sink.waitFor("the kept handle's onAbort ran");
    const line = sink.lines.find((l) => l.includes("the kept handle's onAbort ran"));
    expect(line).toContain('"aborted":true');
    expect(line).toContain('"sameAsSignal":true');
    expect(sink.lines.some((l) => l.includes("a removed onAbort listener ran"))).toBe(false);
    expect(sink.lines.some((l) => l.includes("an onAbort added after the abort ran"))).toBe(false);
  });

  it("runs the kept handle's onAbort when the caller withdraws the call", async () => {
    const caller = new AbortController();
    const pending = host.call("mcpConnectors/sync", "call", ["wait-light", {}], { signal: caller.signal });
    setTimeout(() => caller.abort(new Error("changed my mind")), 50);
    await expect(pending).rejects.toBeDefined();
    await expect.poll(() => sink.lines.filter((l) => l.includes("the kept handle's onAbort ran")).length).toBe(2);
  });

  it("reports progress through the handle to this call's caller", async () => {
    const seen: unknown[] = [];
    await host.call("mcpConnectors/sync", "call", ["progress", {}], { onProgress: (u: unknown) => seen.push(u) });
    expect(seen).toEqual([{ progress: 1, total: 2, message: "through the handle" }]);
  });

  it("survives an onAbort listener that throws: the error ends that worker only, as a throwing signal listener's would, and the instance serves again", async () => {
    await expect(host.mcp("sync").call("throw-on-abort", {})).rejects.toMatchObject({ code: "PB_ERR_CALL_TIMEOUT" });
    await sink.waitFor("onAbort listener exploded");
    // The host blames the instance that threw.
    expect(sink.lines.find((l) => l.includes("onAbort listener exploded"))).toContain("mcpConnectors/sync");
    await expect
      .poll(
        async () =>
          (
            (await host
              .mcp("sync")
              .call("where", {})
              .catch(() => null)) as Record<string, unknown> | null
          )?.handle !== undefined,
        { timeout: 15_000, interval: 200 },
      )
      .toBe(true);
    expect(host.report().instances[0].state).toBe("ready");
  });
});
