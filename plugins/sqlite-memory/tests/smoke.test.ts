// Self-contained smoke test of this plugin folder (the full suite is tests/plugins/sqlite-memory.test.ts).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { PluginContext } from "patchbay/plugin";
import plugin from "../src/index.js";

const noop = () => {};
const ctx: PluginContext = {
  instance: "memoryStores/smoke",
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

it("writes, searches and reads back a memory", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pb-smoke-"));
  const store = await plugin.create(plugin.config.parse({ path: join(dir, "db", "memory.db") }), ctx);
  try {
    expect(await store.health_check()).toBe(true);
    const { id } = await store.write!({ summary: "Patchbay smoke test", pinned: true, metadata: { source: "smoke" } });
    const [hit] = await store.query({ query: 'smoke "test" NEAR(', limit: 5, mode: "fts" });
    expect(hit).toMatchObject({ id, summary: "Patchbay smoke test", pinned: true, metadata: { source: "smoke" } });
    expect(await store.get!(id)).toMatchObject({ id });
  } finally {
    await store.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
});
