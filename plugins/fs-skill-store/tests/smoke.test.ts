// Self-contained smoke test of this plugin folder (the full suite is tests/plugins/fs-skill-store.test.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { PluginContext } from "patchbay/plugin";
import plugin from "../src/index.js";

const noop = () => {};
const ctx: PluginContext = {
  instance: "skillStores/smoke",
  log: { trace: noop, debug: noop, info: noop, warn: noop, error: noop },
  signal: new AbortController().signal,
  remainingMs: () => 5_000,
  connectors: {
    get: () => {
      throw new Error("none");
    },
    list: () => [],
  },
};

it("round-trips a skill and refuses a traversal name", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pb-smoke-"));
  try {
    const store = await plugin.create(plugin.config.parse({ dir: join(dir, "skills") }), ctx);
    expect(await store.health_check()).toBe(true);
    await store.write("hello", "# Hello\n");
    expect(await store.list()).toEqual(["hello"]);
    expect((await store.get("hello"))?.body).toBe("# Hello\n");
    await expect(store.get("../hello")).rejects.toThrow(/invalid skill name/);
    expect(await store.delete("hello")).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
