/**
 * The gateway's own exposition writer (src/gateway/exposition.ts) against prom-client, which it
 * replaces at run time (prom-client is a development dependency only for this): the same random
 * work on both, the same text out, to the byte. Label values and help texts include the characters
 * the format escapes (backslash, double quote, newline) and non-ASCII; values include fractions,
 * zero and the bounds themselves.
 */
import {
  Counter as PromCounter,
  Gauge as PromGauge,
  Histogram as PromHistogram,
  Registry as PromRegistry,
} from "prom-client";
import { describe, expect, it } from "vitest";
import { CONTENT_TYPE, Counter, Gauge, Histogram, Registry } from "../../src/gateway/exposition.js";
import { createMetrics } from "../../src/gateway/metrics.js";
import type { StatusDocument } from "../../src/gateway/status-document.js";
import { seededRandom } from "../helpers.js";

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const ALPHABET = ["a", "b", "_", "-", ".", " ", '"', "\\", "\n", "é", "😀", "0", "/"];

async function render(seed: number, rounds: number): Promise<{ ours: string; theirs: string }> {
  const rand = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const word = () => Array.from({ length: Math.floor(rand() * 4) }, () => pick(ALPHABET)).join("");
  // A small pool of values per label, so series repeat as real tool names do.
  const pool = Array.from({ length: 5 }, word);
  const help = `help ${word()} with \\ and\nnewline`;

  const ours = new Registry();
  const theirs = new PromRegistry();
  const c2 = ours.register(new Counter("c_two_total", help, ["instance_id", "tool"]));
  const p2 = new PromCounter({ name: "c_two_total", help, labelNames: ["instance_id", "tool"], registers: [theirs] });
  const c0 = ours.register(new Counter("c_zero_total", help, []));
  const p0 = new PromCounter({ name: "c_zero_total", help, registers: [theirs] });
  const h = ours.register(new Histogram("h_seconds", help, ["instance_id"], BOUNDS));
  const ph = new PromHistogram({
    name: "h_seconds",
    help,
    labelNames: ["instance_id"],
    buckets: BOUNDS,
    registers: [theirs],
  });
  const h0 = ours.register(new Histogram("h_plain_seconds", help, [], BOUNDS));
  const ph0 = new PromHistogram({ name: "h_plain_seconds", help, buckets: BOUNDS, registers: [theirs] });
  // Pulled at render time, as the status figures are: both read the same list.
  let pulled: Array<[string, number]> = [];
  ours.register(
    new Gauge("g_pulled", help, ["state"], (g) => {
      g.reset();
      for (const [s, v] of pulled) g.set({ state: s }, v);
    }),
  );
  new PromGauge({
    name: "g_pulled",
    help,
    labelNames: ["state"],
    registers: [theirs],
    collect() {
      this.reset();
      for (const [s, v] of pulled) this.set({ state: s }, v);
    },
  });
  ours.register(
    new Counter("c_pulled_total", help, ["instance_id"], (c) => {
      c.reset();
      for (const [s, v] of pulled) c.inc({ instance_id: s }, v);
    }),
  );
  new PromCounter({
    name: "c_pulled_total",
    help,
    labelNames: ["instance_id"],
    registers: [theirs],
    collect() {
      this.reset();
      for (const [s, v] of pulled) this.inc({ instance_id: s }, v);
    },
  });
  const g0 = ours.register(new Gauge("g_plain", help, []));
  const pg0 = new PromGauge({ name: "g_plain", help, registers: [theirs] });

  const amount = () => pick([0, 1, 2, 0.5, 1e-9, 1234.5678, rand() * 100, ...BOUNDS]);
  for (let i = 0; i < rounds; i++) {
    const labels = { instance_id: pick(pool), tool: pick(pool) };
    const by = pick([undefined, amount()]);
    switch (Math.floor(rand() * 6)) {
      case 0:
        c2.inc(labels, by);
        p2.inc(labels, by);
        break;
      case 1:
        c0.inc({}, by);
        if (by === undefined) p0.inc();
        else p0.inc(by);
        break;
      case 2: {
        const v = amount();
        h.observe({ instance_id: labels.instance_id }, v);
        ph.observe({ instance_id: labels.instance_id }, v);
        h0.observe({}, v);
        ph0.observe(v);
        break;
      }
      case 3:
        pulled = Array.from({ length: Math.floor(rand() * 4) }, () => [pick(pool), Math.floor(rand() * 9)]);
        break;
      case 4: {
        const v = amount();
        g0.set({}, v);
        pg0.set(v);
        break;
      }
      default:
        break;
    }
  }
  return { ours: ours.render(), theirs: await theirs.metrics() };
}

describe("the gateway's exposition writer", () => {
  it("writes what prom-client writes for the same work (random, seeded)", async () => {
    for (let seed = 1; seed <= 200; seed++) {
      const { ours, theirs } = await render(seed, 1 + (seed % 60));
      expect(ours, `seed ${seed}`).toBe(theirs);
    }
  });

  it("names the same content type", () => {
    expect(CONTENT_TYPE).toBe(new PromRegistry().contentType);
  });

  it("refuses to count down and a second family of the same name, as prom-client does", () => {
    const r = new Registry();
    const c = r.register(new Counter("x_total", "x", []));
    expect(() => c.inc({}, -1)).toThrow(/decrease/);
    expect(() => r.register(new Counter("x_total", "again", []))).toThrow(/already been registered/);
    expect(() => new Histogram("h", "h", [], [1]).observe({}, Number.NaN)).toThrow(/valid number/);
  });
});

describe("createMetrics scrape", () => {
  it("shows what was counted since the last scrape once the reuse window has passed", async () => {
    const status = () => ({ instances: [], tools: 0 }) as unknown as StatusDocument;
    const m = createMetrics(status);
    expect(await m.scrape()).not.toMatch(/patchbay_tool_calls_total\{/);
    m.toolCall("mcpConnectors/a", "a__echo", "ok", 0.001, "operator");
    await new Promise((r) => setTimeout(r, 300));
    expect(await m.scrape()).toMatch(/patchbay_tool_calls_total\{[^}]*tool="a__echo"[^}]*\} 1/);
    m.toolCall("mcpConnectors/a", "a__echo", "ok", 0.001, "operator");
    await new Promise((r) => setTimeout(r, 300));
    expect(await m.scrape()).toMatch(/patchbay_tool_calls_total\{[^}]*tool="a__echo"[^}]*\} 2/);
  });
});
