/**
 * DirectRequests' own clock and endings, which a host cannot reach (its deadline always comes
 * first): the shared timer times each request out at its own timeout, as the SDK Client's
 * per-request timer did, with the Client's error and a notification to the server; a request
 * refused before it is sent, and one whose transport closed, fail as the Client fails them.
 */
import { ErrorCode, McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { DirectRequests } from "../src/direct-requests.js";
import { RequestSignal } from "../src/request-signal.js";

type Sent = { id?: string; method?: string; params?: { requestId?: unknown } };

const anything = { safeParse: (v: unknown) => ({ success: true as const, data: v }) };

function wire(open = true) {
  const sent: Sent[] = [];
  const errors: Error[] = [];
  const direct = new DirectRequests({
    send: async (m: JSONRPCMessage) => {
      if (!open) throw new Error("Not connected");
      sent.push(m as Sent);
    },
    open,
    error: (e) => errors.push(e),
  });
  return { direct, sent, errors };
}

const signal = () => new RequestSignal().asAbortSignal;
const settled = async (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: unknown) => e,
  );

describe("DirectRequests", () => {
  it("times each request out at its own timeout, an earlier one first, with the SDK Client's error and a cancellation", async () => {
    const { direct, sent } = wire();
    // Before the requests: a loaded machine may pause this test between any two lines.
    const t0 = Date.now();
    const long = direct.request("tools/call", { name: "a" }, anything, { timeout: 1000, signal: signal() }, () => {});
    const short = direct.request("tools/call", { name: "b" }, anything, { timeout: 50, signal: signal() }, () => {});
    const first = await settled(short);
    expect(first).toBeInstanceOf(McpError);
    expect(first).toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: 50 } });
    expect((first as Error).message).toContain("Request timed out");
    expect(direct.size).toBe(1);
    expect(await settled(long)).toMatchObject({ code: ErrorCode.RequestTimeout, data: { timeout: 1000 } });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    const cancels = sent.filter((m) => m.method === "notifications/cancelled").map((m) => m.params?.requestId);
    expect(cancels).toEqual([sent[1].id, sent[0].id]);
    expect(direct.size).toBe(0);
  });

  it("an answer in time clears the request; the timer firing later finds nothing to cancel", async () => {
    const { direct, sent } = wire();
    const p = direct.request("tools/call", {}, anything, { timeout: 30, signal: signal() }, () => {});
    await Promise.resolve();
    expect(direct.take({ jsonrpc: "2.0", id: sent[0].id, result: { ok: 1 } } as JSONRPCMessage)).toBe(true);
    expect(await p).toEqual({ ok: 1 });
    await new Promise((r) => setTimeout(r, 60));
    expect(sent).toHaveLength(1);
  });

  it("a signal already aborted refuses the request with its reason, and nothing is sent", async () => {
    const { direct, sent } = wire();
    const s = new RequestSignal();
    const reason = new Error("gone");
    s.abort(reason);
    expect(
      await settled(direct.request("tools/call", {}, anything, { timeout: 1000, signal: s.asAbortSignal }, () => {})),
    ).toBe(reason);
    expect(sent).toHaveLength(0);
  });

  it("an abort rejects with the reason as a RequestTimeout McpError and tells the server", async () => {
    const { direct, sent } = wire();
    const s = new RequestSignal();
    const p = direct.request("tools/call", {}, anything, { timeout: 10_000, signal: s.asAbortSignal }, () => {});
    s.abort(new Error("the caller cancelled it"));
    const err = await settled(p);
    expect(err).toMatchObject({
      code: ErrorCode.RequestTimeout,
      message: expect.stringContaining("the caller cancelled it"),
    });
    await Promise.resolve();
    expect(sent[1]).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: sent[0].id, reason: "Error: the caller cancelled it" },
    });
  });

  it("a transport that is closed fails the send with its error, and the close fails what is in flight", async () => {
    const closed = wire(false);
    expect(
      await settled(closed.direct.request("tools/call", {}, anything, { timeout: 1000, signal: signal() }, () => {})),
    ).toMatchObject({
      message: "Not connected",
    });
    expect(closed.direct.size).toBe(0);
    const { direct } = wire();
    const p = direct.request("tools/call", {}, anything, { timeout: 1000, signal: signal() }, () => {});
    direct.closed();
    expect(await settled(p)).toMatchObject({
      code: ErrorCode.ConnectionClosed,
      message: expect.stringContaining("Connection closed"),
    });
  });

  it("sends the params as given, with the request's id as progressToken added to their _meta", async () => {
    const { direct, sent } = wire();
    const ps = [
      { name: "a", arguments: { x: 1 } },
      { name: "b", arguments: {}, _meta: { patchbay_identity: { user: "u" } } },
      { name: "c", arguments: {}, task: { ttl: 5 }, _meta: { k: 1 } },
    ];
    const calls = ps.map((p) =>
      settled(direct.request("tools/call", p, anything, { timeout: 1000, signal: signal() }, () => {})),
    );
    await Promise.resolve();
    expect(sent.map((m) => (m as { params?: unknown }).params)).toEqual([
      { name: "a", arguments: { x: 1 }, _meta: { progressToken: sent[0].id } },
      { name: "b", arguments: {}, _meta: { patchbay_identity: { user: "u" }, progressToken: sent[1].id } },
      { name: "c", arguments: {}, task: { ttl: 5 }, _meta: { k: 1, progressToken: sent[2].id } },
    ]);
    expect(ps[1]._meta).toEqual({ patchbay_identity: { user: "u" } });
    direct.closed();
    await Promise.all(calls);
  });

  it("leaves every other message to the SDK Client: numeric ids, requests, unknown ids, other tokens", async () => {
    const { direct, sent } = wire();
    const p = settled(direct.request("tools/call", {}, anything, { timeout: 1000, signal: signal() }, () => {}));
    await Promise.resolve();
    const id = sent[0].id as string;
    const other = [
      { jsonrpc: "2.0", id: 0, result: {} },
      { jsonrpc: "2.0", id: Number.NaN, result: {} },
      { jsonrpc: "2.0", id, method: "ping" },
      { jsonrpc: "2.0", id: `${id}0`, result: {} },
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 0, progress: 1 } },
      { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: id } },
    ];
    for (const m of other) expect(direct.take(m as JSONRPCMessage)).toBe(false);
    expect(direct.size).toBe(1);
    direct.closed();
    expect(await p).toMatchObject({ code: ErrorCode.ConnectionClosed });
  });
});
