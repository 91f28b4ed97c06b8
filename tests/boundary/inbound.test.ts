/**
 * The host's inbound checks in isolation: every malformed shape is refused with a
 * reason and nothing throws; valid messages pass untouched; the log limiter drops past its cap;
 * the scrubber never censors codes or protected names.
 */
import { describe, expect, it } from "vitest";
import { checkResultValue, checkWorkerMessage } from "../../src/contract/rpc-check.js";
import { LOG_LINES_PER_WINDOW, LOG_MSG_MAX, LogLimiter } from "../../src/spawn/log-limit.js";
import { Scrubber } from "../../src/secrets.js";
import { MAX_RESOURCE_URI_CHARS, type LogMessage } from "../../src/contract/rpc.js";

describe("checkWorkerMessage", () => {
  it.each([
    [null],
    [undefined],
    [42],
    ["log"],
    [[]],
    [{}],
    [{ t: "nope" }],
    [{ t: "log", level: "nope", msg: "x" }],
    [{ t: "log", level: "info", msg: 5 }],
    [{ t: "log", level: "info", msg: "x", data: [1] }],
    [{ t: "secrets", secrets: null }],
    [{ t: "secrets", secrets: [1] }],
    [{ t: "ready", secrets: 5, methods: [] }],
    [{ t: "ready", secrets: [], methods: null }],
    [{ t: "init-failed", error: null, secrets: [] }],
    [{ t: "init-failed", error: { code: 1, message: "m" }, secrets: [] }],
    [{ t: "result", id: "1", ok: true }],
    [{ t: "result", id: 1, ok: "yes" }],
    [{ t: "result", id: -1, ok: true }],
    [{ t: "grant-call", id: 1, target: "x", method: "m" }],
    [{ t: "resource-updated" }],
    [{ t: "resource-updated", uri: 42 }],
    [{ t: "resource-updated", uri: "" }],
    [{ t: "list-changed" }],
    [{ t: "list-changed", list: "everything" }],
    [{ t: "list-changed", list: ["tools"] }],
  ])("refuses %j with a reason", (raw) => {
    const r = checkWorkerMessage(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.why.length).toBeGreaterThan(0);
  });

  it("passes valid messages through as they are", () => {
    const msgs = [
      { t: "result", id: 1, ok: true, value: { a: 1 } },
      { t: "log", level: "warn", msg: "m", data: { k: 1 } },
      { t: "ready", secrets: ["s"], methods: ["call"] },
      { t: "init-failed", error: { code: "PB_ERR_X", message: "m", hint: "h", data: {} }, secrets: [] },
      { t: "grant-call", id: 2, target: "mcpConnectors/a", method: "call", args: [] },
      { t: "closed" },
      { t: "resource-updated", uri: "test://a" },
      { t: "resource-updated", uri: "x".repeat(MAX_RESOURCE_URI_CHARS) },
      { t: "list-changed", list: "tools" },
      { t: "list-changed", list: "resources" },
    ];
    for (const m of msgs) expect(checkWorkerMessage(m)).toEqual({ ok: true, msg: m });
  });

  it("refuses a resource update whose uri is longer than a subscription may be", () => {
    const r = checkWorkerMessage({ t: "resource-updated", uri: "x".repeat(MAX_RESOURCE_URI_CHARS + 1) });
    expect(r).toEqual({
      ok: false,
      why: `a resource-updated message whose uri has ${MAX_RESOURCE_URI_CHARS + 1} characters (at most ${MAX_RESOURCE_URI_CHARS})`,
    });
  });
});

describe("checkResultValue", () => {
  it("finds a BigInt and a cycle deep inside, and accepts a shared (acyclic) sub-object", () => {
    expect(checkResultValue({ a: [{ b: 1n }] }, false)).toMatchObject({
      ok: false,
      code: "PB_ERR_CONTRACT_BIGINT",
      why: expect.stringContaining("/a/0/b"),
    });
    const c: Record<string, unknown> = { x: {} };
    (c.x as Record<string, unknown>).back = c;
    expect(checkResultValue(c, false)).toMatchObject({ ok: false, code: "PB_ERR_CONTRACT_CYCLIC" });
    const shared = { v: 1 };
    expect(checkResultValue({ a: shared, b: shared }, false)).toMatchObject({ ok: true });
  });

  it("answers a flat result of primitives at once, and still finds a BigInt or shared memory at its top level", () => {
    expect(checkResultValue({ a: 1, b: "x", c: null, d: undefined, e: true }, true)).toEqual({
      ok: true,
      value: { a: 1, b: "x", c: null, d: undefined, e: true },
    });
    expect(checkResultValue([1, "x"], true)).toEqual({ ok: true, value: [1, "x"] });
    expect(checkResultValue({ a: 1, big: 2n }, false)).toMatchObject({
      ok: false,
      code: "PB_ERR_CONTRACT_BIGINT",
      why: expect.stringContaining("/big"),
    });
    expect(checkResultValue([1, 2n], true)).toMatchObject({
      ok: false,
      code: "PB_ERR_CONTRACT_BIGINT",
      why: expect.stringContaining("/1"),
    });
    const r = checkResultValue([new Uint8Array(new SharedArrayBuffer(1))], true) as { ok: true; value: Uint8Array[] };
    expect(r.value[0].buffer).toBeInstanceOf(ArrayBuffer);
  });

  it("walks 100,000-deep nesting without overflowing the stack", () => {
    let v: unknown = 1n;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(checkResultValue(v, false)).toMatchObject({ ok: false, code: "PB_ERR_CONTRACT_BIGINT" });
  });

  it("copies SharedArrayBuffer-backed values when the channel shares memory", () => {
    const bytes = new Uint8Array(new SharedArrayBuffer(2));
    const r = checkResultValue({ bytes }, true) as { ok: true; value: { bytes: Uint8Array } };
    bytes[0] = 7;
    expect(r.value.bytes[0]).toBe(0);
    expect(r.value.bytes.buffer).toBeInstanceOf(ArrayBuffer);
  });
});

describe("LogLimiter", () => {
  it("keeps the cap per window, says when it starts dropping, reports the count in the next window, and cuts long lines", () => {
    const out: LogMessage[] = [];
    let now = 0;
    const limiter = new LogLimiter(
      (m) => out.push(m),
      () => now,
    );
    for (let i = 0; i < LOG_LINES_PER_WINDOW + 500; i++)
      limiter.push({ t: "log", level: "info", msg: "x".repeat(i === 0 ? LOG_MSG_MAX + 10 : 1) });
    expect(limiter.dropped).toBe(500);
    expect(out.filter((m) => m.level === "info")).toHaveLength(LOG_LINES_PER_WINDOW);
    expect(out[0].msg).toContain("10 more characters cut");
    now = 5_000;
    limiter.push({ t: "log", level: "info", msg: "next window" });
    expect(out.some((m) => m.msg.startsWith("500 log lines dropped"))).toBe(true);
  });
});

describe("Scrubber protection", () => {
  it("never scrubs a value that occurs inside an error code or a protected name", () => {
    const s = new Scrubber();
    s.protect(["mcpConnectors/primary", "fx-hostile"]);
    s.addAll(["PB_ERR_", "mcpConnectors/", "hostile", "real-secret-1"]);
    expect(s.scrub("PB_ERR_CONFIG_INVALID mcpConnectors/primary fx-hostile real-secret-1")).toBe(
      "PB_ERR_CONFIG_INVALID mcpConnectors/primary fx-hostile [REDACTED]",
    );
  });
});
