/**
 * The kits themselves must not pass on nothing: run against fixture plugins that break a rule,
 * the claim for that rule fails with a reason that says what to fix, and runConformance never
 * throws for a plugin's failure.
 */
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { conformanceKit, runConformance, type ClaimResult } from "../../src/testing/index.js";
import { cleanupTempDirs, FIXTURE_PLUGINS, tempDir } from "../helpers.js";

afterAll(() => cleanupTempDirs());
const fx = (name: string) => path.join(FIXTURE_PLUGINS, name);
const byClaim = (results: ClaimResult[]) => Object.fromEntries(results.map((r) => [r.claim, r]));
const INVALID = "the invalid config makes health_check answer false (no hang, no throw)";

describe("conformance kits catch broken plugins", () => {
  it("an invalid config that hangs, throws, stays healthy or fails the schema fails the health claim, each with its reason", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ health: "hang" }, /answered hung .*bound its own probe/],
      [{ health: "throw" }, /answered threw .*must catch/],
      [{ health: "true" }, /answered true/],
      [{ health: "nonsense" }, /never reached .*PB_ERR_INSTANCE_CONFIG_INVALID.*passes the plugin's config schema/s], // the error lists each issue on a line of its own
    ];
    for (const [invalidConfig, reason] of cases) {
      const results = byClaim(
        await runConformance("memory-store", {
          plugin: fx("fx-health"),
          config: { health: "true" },
          invalidConfig,
          healthTimeoutMs: 500,
        }),
      );
      expect(results[INVALID], JSON.stringify(invalidConfig)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(reason),
      });
      expect(results["boots with the valid config and reports ready"].ok).toBe(true);
    }
    const good = byClaim(
      await runConformance("memory-store", {
        plugin: fx("fx-health"),
        config: { health: "true" },
        invalidConfig: { health: "false" },
      }),
    );
    expect(good[INVALID]).toMatchObject({ ok: true, reason: null });
  });

  it("a skill store that answers for another skill fails the round trip; its hostile names never reach it", async () => {
    const dir = tempDir();
    const results = byClaim(
      await runConformance("skill-store", {
        plugin: fx("fx-skill-naive"),
        dir,
        config: { dir: "s", impostor: true },
        invalidConfig: { dir: "s" },
      }),
    );
    expect(results["write → get → list → delete round-trips a skill byte for byte"]).toMatchObject({
      ok: false,
      reason: expect.stringContaining("PB_ERR_CONTRACT_VIOLATION"),
    });
    expect(results["traversal, separator and control-character names are refused before the plugin sees them"].ok).toBe(
      true,
    );
    expect(results[INVALID]).toMatchObject({ ok: false, reason: expect.stringContaining("answered true") });
  });

  it("an agent whose receipts predate sent_at fails both deliver claims; undeclared agent_status is skipped", async () => {
    const results = byClaim(
      await runConformance("agent", { plugin: fx("fx-agent-backdated"), config: {}, invalidConfig: null }),
    );
    expect(
      results["deliver of an augment payload (with provenance) answers delivered_at ≥ sent_at, recorded in receipts"],
    ).toMatchObject({ ok: false, reason: expect.stringContaining("before the host's sent_at") });
    expect(results["deliver of a template payload answers delivered_at ≥ sent_at, recorded in receipts"]).toMatchObject(
      { ok: false, reason: expect.stringContaining("before the host's sent_at") },
    );
    expect(results["agent_status answers active, idle, asleep or unknown"]).toMatchObject({ ok: true, skipped: true });
    expect(results["request_response is NotImplemented, or echoes correlation_id"].ok).toBe(true);
  });

  it("a memory store with a declared mode that never answers fails the every-mode claim, naming the mode", async () => {
    const results = byClaim(
      await runConformance("memory-store", { plugin: fx("fx-mem-one-mode"), config: {}, invalidConfig: null }),
    );
    expect(results["query answers contract-valid records in every declared mode"]).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/query mode "semantic" answered no records/),
    });
    // Its "fts" mode works: the round trip through it passes.
    expect(results["write → get → query round-trips every seed field, curated fields at the top level"]).toMatchObject({
      ok: true,
    });
  });

  it("reports every claim failed, with the reason, when the plugin cannot be found or is of another kind", async () => {
    const missing = await runConformance("mcp", { plugin: "no-such-plugin", config: {}, invalidConfig: null });
    expect(missing).toHaveLength(conformanceKit("mcp").length);
    expect(missing.every((r) => !r.ok && /PB_ERR_CONFIG_UNKNOWN_PLUGIN/.test(r.reason ?? ""))).toBe(true);
    const wrongKind = await runConformance("mcp", {
      plugin: fx("fx-health"),
      config: { health: "true" },
      invalidConfig: null,
    });
    expect(wrongKind[0].reason).toMatch(/memory-store plugin, but the mcp kit/);
  });

  it("skips every claim with the reason given, and finds a bundled plugin by name", async () => {
    const skipped = await runConformance("memory-store", {
      plugin: "postgres-memory",
      config: {},
      invalidConfig: null,
      skip: "no server",
    });
    expect(skipped).toHaveLength(conformanceKit("memory-store").length);
    expect(skipped.every((r) => r.ok && r.skipped && r.reason === "no server")).toBe(true);
    const noop = await runConformance("agent", { plugin: "noop-agent", config: {}, invalidConfig: null });
    expect(noop).toHaveLength(conformanceKit("agent").length);
    expect(noop.filter((r) => !r.ok)).toEqual([]);
    expect(byClaim(noop)["boots with the valid config and reports ready"]).toMatchObject({ ok: true, reason: null });
  });
});
