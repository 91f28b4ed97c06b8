/**
 * The in-memory quota: the weighted two-window arithmetic against hand-worked numbers, concurrent
 * slots, and a slot given back exactly once however often its release is called; then the gate
 * turning a refusal into the coded JSON-RPC error with the client and the wait.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ClientGate, type Admission } from "../../src/gateway/clients/gate.js";
import { MemoryQuotaStore } from "../../src/gateway/clients/quota-memory.js";
import { estimate, retryAfterMs, rolled, WINDOW_MS } from "../../src/gateway/clients/quota-window.js";
import type { Caller } from "../../src/gateway/clients/caller.js";

const T0 = 1_700_000_040_000; // a whole minute of the clock
const rate = (n: number) => ({ callsPerMinute: n, concurrent: null });

function clock(start = T0) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms) };
}

const admitted = (a: Admission): boolean => a.ok;

describe("quota window arithmetic", () => {
  it("weights the previous minute by how much of it still overlaps", () => {
    expect(estimate({ previous: 10, current: 2, elapsedMs: 15_000 })).toBe(9.5);
    expect(rolled(T0, 4, 7, T0 + 1_000)).toEqual({ previous: 4, current: 7, elapsedMs: 1_000 });
    expect(rolled(T0, 4, 7, T0 + WINDOW_MS + 5)).toEqual({ previous: 7, current: 0, elapsedMs: 5 });
    expect(rolled(T0, 4, 7, T0 + 2 * WINDOW_MS)).toEqual({ previous: 0, current: 0, elapsedMs: 0 });
  });

  it("names the wait after which exactly one more call fits", () => {
    // Full in the current window alone: next window, 5 * (1 - t/60 s) <= 4 → t = 12 s; 50 s from now.
    expect(retryAfterMs({ previous: 0, current: 5, elapsedMs: 22_000 }, 5)).toBe(38_000 + 12_000);
    // Room in the current window, the previous one's weight must fall: 6 * (1 - t/60 s) <= 2 → t = 40 s.
    expect(retryAfterMs({ previous: 6, current: 2, elapsedMs: 30_000 }, 5)).toBe(10_000);
    expect(retryAfterMs({ previous: 0, current: 1, elapsedMs: 0 }, 5)).toBe(0);
  });
});

describe("MemoryQuotaStore", () => {
  it("admits callsPerMinute calls, refuses the next with the wait, and admits again once it passed", () => {
    const c = clock(T0 + 10_000);
    const store = new MemoryQuotaStore(c.now);
    for (let i = 0; i < 5; i++) expect(admitted(store.admit("alpha", rate(5)))).toBe(true);
    const refused = store.admit("alpha", rate(5));
    expect(refused).toMatchObject({ ok: false, code: "PB_ERR_CLIENT_QUOTA" });
    if (refused.ok) throw new Error("admitted");
    expect(refused.message).toContain('Client "alpha"');
    expect(refused.message).toContain("5 calls per minute");
    expect(refused.retryAfterMs).toBe(50_000 + 12_000);
    // A refused call is not counted: waiting one ms less is still too early, the exact wait is not.
    c.set(T0 + 10_000 + refused.retryAfterMs - 1);
    expect(admitted(store.admit("alpha", rate(5)))).toBe(false);
    c.set(T0 + 10_000 + refused.retryAfterMs);
    expect(admitted(store.admit("alpha", rate(5)))).toBe(true);
    // Another client has its own count.
    expect(admitted(store.admit("beta", rate(5)))).toBe(true);
  });

  it("never admits more than the limit in any minute under steady traffic", () => {
    const c = clock();
    const store = new MemoryQuotaStore(c.now);
    let inLastMinute: number[] = [];
    for (let t = T0; t < T0 + 5 * WINDOW_MS; t += 250) {
      c.set(t);
      if (store.admit("steady", rate(30)).ok) inLastMinute.push(t);
      inLastMinute = inLastMinute.filter((x) => x > t - WINDOW_MS);
      expect(inLastMinute.length).toBeLessThanOrEqual(33);
    }
    expect(inLastMinute.length).toBeGreaterThanOrEqual(27);
  });

  it("holds concurrent slots and gives each back exactly once", () => {
    const store = new MemoryQuotaStore();
    const limits = { callsPerMinute: null, concurrent: 2 };
    const a = store.admit("alpha", limits);
    const b = store.admit("alpha", limits);
    const refused = store.admit("alpha", limits);
    expect(refused).toMatchObject({ ok: false, code: "PB_ERR_CLIENT_QUOTA" });
    if (refused.ok || !a.ok || !b.ok) throw new Error("unexpected admission");
    expect(refused.message).toContain("2 calls in flight");
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    a.release();
    a.release();
    a.release();
    expect(store.inFlight("alpha")).toBe(1);
    expect(admitted(store.admit("alpha", limits))).toBe(true);
    expect(admitted(store.admit("alpha", limits))).toBe(false);
    b.release();
    expect(store.inFlight("alpha")).toBe(1);
  });
});

describe("ClientGate with a quota", () => {
  const caller = (limits: { callsPerMinute: number | null; concurrent: number | null }): Caller =>
    ({ id: "alpha", binding: "alpha", policy: { limits } }) as unknown as Caller;

  it("throws -32004 naming the client and the wait; the operator and a client without limits pass", () => {
    const gate = new ClientGate();
    gate.quotas = new MemoryQuotaStore();
    const limited = caller({ callsPerMinute: 1, concurrent: null });
    const release = gate.admit(limited);
    expect(typeof release).toBe("function");
    let err: unknown;
    try {
      gate.admit(limited);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32004);
    expect((err as McpError).message).toContain("PB_ERR_CLIENT_QUOTA");
    expect((err as McpError).data).toMatchObject({ code: "PB_ERR_CLIENT_QUOTA", client: "alpha" });
    expect((err as { data: { retryAfterMs: number } }).data.retryAfterMs).toBeGreaterThan(0);
    const free = caller({ callsPerMinute: null, concurrent: null });
    for (let i = 0; i < 10; i++) expect(typeof gate.admit(free)).toBe("function");
  });
});
