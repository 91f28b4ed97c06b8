import { describe, expect, it } from "vitest";
import { levenshtein, suggest } from "../../src/config/suggest.js";

describe("suggest", () => {
  const instanceKeys = [
    "plugin",
    "required",
    "timeout_ms",
    "health_timeout_ms",
    "max_memory_mb",
    "allowed_tools",
    "identity",
    "grants",
    "config",
  ];

  it("finds the intended key", () => {
    expect(suggest("allowed_tool", instanceKeys)).toBe("allowed_tools");
    expect(suggest("allowedTools", instanceKeys)).toBe("allowed_tools");
    expect(suggest("timeout", instanceKeys)).toBe("timeout_ms");
    expect(suggest("plugn", instanceKeys)).toBe("plugin");
    expect(suggest("memoryStore", ["memoryStores", "localModels"])).toBe("memoryStores");
  });

  it("stays quiet when nothing is close", () => {
    expect(suggest("banana", instanceKeys)).toBeNull();
    expect(suggest("x", instanceKeys)).toBeNull();
  });

  it("measures edit distance", () => {
    expect(levenshtein("kitten", "sitting")).toBe(3);
    expect(levenshtein("", "abc")).toBe(3);
    expect(levenshtein("same", "same")).toBe(0);
  });
});
