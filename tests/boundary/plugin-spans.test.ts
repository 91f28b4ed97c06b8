/**
 * A plugin's own spans across the worker boundary, with a real worker thread: a traced host
 * call carries its traceparent to the plugin (ctx.currentCall().traceparent, ctx.trace), the
 * plugin's span records come back to the call's `trace.spans` rooted at the call's span, and a
 * plugin that floods spans or forges span messages gets them capped and dropped while the host
 * and the instance carry on. No OpenTelemetry module is involved: this is the RPC contract.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import type { SpanRecord } from "../../src/contract/span-records.js";
import { cleanupTempDirs, logSink, writeConfig } from "../helpers.js";

const SECRET = "tr4ce-s3cret-value";
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALL_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${CALL_SPAN}-01`;

let host: Host;
const sink = logSink();

beforeAll(async () => {
  const { file } = writeConfig({
    mcpConnectors: {
      traced: { plugin: "fx-traced", config: { token: SECRET } },
      child: { plugin: "fx-traced", isolation: "process", config: { token: SECRET } },
    },
  });
  host = await createHost({ config: file, logDestination: sink.stream, logLevel: "debug" });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

async function traced(
  tool: string,
  id = "mcpConnectors/traced",
): Promise<{ answer: Record<string, unknown>; spans: SpanRecord[]; calls: number }> {
  const spans: SpanRecord[] = [];
  let calls = 0;
  const result = (await host.call(id, "call", [tool, {}], {
    trace: { traceparent: TRACEPARENT, spans: (r) => (calls++, spans.push(...r)) },
  })) as { content: { text: string }[] };
  return { answer: JSON.parse(result.content[0].text), spans, calls };
}

describe("plugin spans across the worker boundary", () => {
  it("gives the plugin the call's traceparent and exports its nested spans under it", async () => {
    const { answer, spans, calls } = await traced("nest");
    expect(answer.seen).toBe(TRACEPARENT);
    expect(calls).toBe(1);
    const outer = spans.find((s) => s.name === "outer")!;
    const inner = spans.find((s) => s.name === "inner")!;
    expect(outer.parent).toBe(CALL_SPAN);
    expect(inner.parent).toBe(outer.id);
    expect(inner.kind).toBe("client");
    expect(inner.error).toBe("inner failed on purpose");
    expect(answer.inner).toBe(`00-${TRACE_ID}-${inner.id}-01`);
    expect(inner.end - inner.start).toBeGreaterThanOrEqual(4);
    expect(outer.attributes).toMatchObject({ "fx.count": 2 });
    // The record still holds the value here: the host's tracer scrubs it (tests/gateway/tracing-e2e).
    expect(outer.attributes?.["fx.token"]).toBe(SECRET);
  });

  it("does the same for a process-isolated instance (the child's framed channel)", async () => {
    const { answer, spans } = await traced("nest", "mcpConnectors/child");
    expect(answer.seen).toBe(TRACEPARENT);
    expect(spans.map((s) => [s.name, s.parent === CALL_SPAN])).toEqual([
      ["inner", false],
      ["outer", true],
    ]);
  });

  it("sends nothing and records nothing for an untraced call", async () => {
    const result = (await host.call("mcpConnectors/traced", "call", ["nest", {}])) as { content: { text: string }[] };
    expect(JSON.parse(result.content[0].text)).toMatchObject({ seen: null, inner: null });
  });

  it("caps a flood of spans at 32 per call, names and attributes bounded", async () => {
    const { spans } = await traced("flood");
    expect(spans).toHaveLength(32);
    for (const s of spans) {
      expect(s.name.length).toBeLessThanOrEqual(128);
      for (const v of Object.values(s.attributes ?? {})) expect(String(v).length).toBeLessThanOrEqual(256);
    }
  });

  it("drops forged span messages and records, and the instance carries on", async () => {
    const { spans, calls } = await traced("forge");
    expect(calls).toBe(1);
    expect(spans.map((s) => s.id).sort()).toEqual(["aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"]);
    const big = spans.find((s) => s.id === "bbbbbbbbbbbbbbbb")!;
    expect(big.name).toHaveLength(128);
    expect(Object.keys(big.attributes ?? {})).toHaveLength(16);
    await sink.waitFor("a spans message of more than 32 spans");
    await sink.waitFor("a malformed spans message");
    const again = await traced("nest");
    expect(again.spans).toHaveLength(2);
    expect(host.liveStatus().find((s) => s.id === "mcpConnectors/traced")).toMatchObject({
      state: "ready",
      restarts: 0,
    });
  });

  it("does not send a traceparent that is not the strict W3C form", async () => {
    for (const bad of [
      "01-" + TRACEPARENT.slice(3),
      TRACEPARENT.toUpperCase(),
      `00-${"0".repeat(32)}-${CALL_SPAN}-01`,
    ]) {
      const spans: SpanRecord[] = [];
      const result = (await host.call("mcpConnectors/traced", "call", ["nest", {}], {
        trace: { traceparent: bad, spans: (r) => spans.push(...r) },
      })) as { content: { text: string }[] };
      expect(JSON.parse(result.content[0].text).seen).toBeNull();
      expect(spans).toEqual([]);
    }
  });
});
