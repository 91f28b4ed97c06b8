/**
 * Progress crosses the worker boundary like everything else: untrusted. A plugin that reports
 * nonsense (not a number, a 100 kB text, a total that is not a number, its own secret) reaches
 * the caller's onProgress only as checked numbers, a bounded text, and scrubbed.
 */
import { describe, expect, it } from "vitest";
import { bootMcp } from "./_host.js";

describe("progress from a worker", () => {
  it("is checked, bounded and scrubbed before the caller sees it", async () => {
    const t = await bootMcp(
      { liar: { plugin: "fx-progress-liar", config: { token: "pb-secret-progress-token" } } },
      { plugins: ["tests/fixtures/mcp/plugins"] },
    );
    try {
      const seen: { progress: number; total?: number; message?: string }[] = [];
      await t.host.call("mcpConnectors/liar", "call", ["lie", {}], { onProgress: (u) => seen.push(u) });
      expect(seen.map((u) => u.progress)).toEqual([1, 2, 3]);
      expect(seen[0].message!.length).toBe(1_000);
      expect(seen[1]).toEqual({ progress: 2 });
      expect(seen[2].message).not.toContain("pb-secret-progress-token");
    } finally {
      await t.host.close();
    }
  });
});
