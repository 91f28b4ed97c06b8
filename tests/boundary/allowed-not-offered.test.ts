/**
 * The guard notes which allowed_tools names a list_tools answer lacks (doctor's typo warning). The
 * plugin chooses that answer, so the note is bounded whatever it sends: at most 20 names, each
 * guessed against at most 1,000 offered names of at most 128 characters; the filtered list is
 * unchanged by it.
 */
import { describe, expect, it } from "vitest";
import { checkResult } from "../../src/guard/guard.js";
import type { GuardTarget } from "../../src/contract/target.js";

const target = (allowedTools: string[]): GuardTarget => ({
  instance: "mcpConnectors/x",
  kind: "mcp",
  capabilities: [],
  allowedTools,
  identity: null,
});

describe("allowed_tools names a list_tools answer lacks", () => {
  it("are noted with the likeliest offered name, and the list is filtered as before", () => {
    const t = target(["ecoh", "whoami"]);
    const out = checkResult(t, "list_tools", [], [{ name: "echo" }, { name: "whoami" }, { name: "other" }]);
    expect(out).toEqual([{ name: "whoami" }]);
    expect(t.allowedNotOffered).toEqual([{ name: "ecoh", suggestion: "echo" }]);
    checkResult(t, "list_tools", [], [{ name: "ecoh" }, { name: "whoami" }]);
    expect(t.allowedNotOffered).toEqual([]);
  });

  it("stay bounded against a hostile answer: 10,000 tools with 1 KiB names (10 MB) and 50 names missing", () => {
    const allowed = Array.from({ length: 50 }, (_, i) => `tool-${i}`);
    const t = target(allowed);
    const huge = Array.from({ length: 10_000 }, (_, i) => ({ name: `${"x".repeat(1024)}${i}` }));
    const out = checkResult(t, "list_tools", [], [...huge, { name: "tool-O" }]);
    expect(out).toEqual([]);
    expect(t.allowedNotOffered).toHaveLength(20);
    // Only short names are guessed from: the one that is close is found among the first 1,000 short ones.
    expect(t.allowedNotOffered![0]).toEqual({ name: "tool-0", suggestion: "tool-O" });
  });
});
