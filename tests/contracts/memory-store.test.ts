/**
 * The memory-store rules the host enforces on every plugin (seed 001), each shown with a fixture
 * plugin that breaks it: core fields, limit, curated fields never duplicated into metadata,
 * undeclared modes and filter keys refused before they arrive, get/write answering the ids asked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../src/index.js";
import { cleanupTempDirs, writeConfig } from "../helpers.js";

let host: Host;

beforeAll(async () => {
  const { file } = writeConfig({
    memoryStores: {
      nocore: { plugin: "fx-mem-no-core" },
      overlimit: { plugin: "fx-mem-over-limit" },
      dup: { plugin: "fx-mem-dup-curated" },
      open: { plugin: "fx-mem-open" },
      wrongid: { plugin: "fx-mem-wrong-id" },
    },
  });
  host = await createHost({ config: file, logLevel: "silent" });
});
afterAll(async () => {
  await host?.close();
  cleanupTempDirs();
});

const q = (extra: Record<string, unknown> = {}) => ({ query: "x", limit: 2, mode: "fts", ...extra });

describe("memory-store contract, enforced by the host", () => {
  it("refuses records without their core fields", async () => {
    await expect(host.memory("nocore").query(q())).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining("summary"),
    });
    await expect(host.memory("nocore").get!("m1")).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining("id"),
    });
  });

  it("refuses more records than the limit asked for", async () => {
    await expect(host.memory("overlimit").query(q({ limit: 3 }))).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      data: { limit: 3, returned: 4 },
    });
  });

  it("refuses a curated field duplicated into metadata, naming the field", async () => {
    await expect(host.memory("dup").query(q())).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      data: { field: "thread_status" },
    });
    await expect(host.memory("dup").get!("m1")).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      data: { field: "vault" },
    });
  });

  it("lets declared modes and filter keys through, and refuses undeclared ones before they reach the plugin", async () => {
    const open = host.memory("open");
    const first = await open.query(q({ mode: "semantic", vault: "v1" }));
    expect(JSON.parse(first[0].summary)).toEqual({ query: "x", limit: 2, mode: "semantic", vault: "v1" });
    expect(first[0].id).toBe("call-1");

    const mode = await open.query(q({ mode: "rerank" })).catch((e) => e);
    expect(mode).toMatchObject({
      code: "PB_ERR_MODE_UNDECLARED",
      data: { mode: "rerank", modes: ["fts", "semantic"] },
    });
    expect(mode.message).toContain('"rerank"');
    const filter = await open.query(q({ domain_tags: ["ops"], strict: true })).catch((e) => e);
    expect(filter).toMatchObject({
      code: "PB_ERR_FILTER_UNDECLARED",
      data: { filters: ["domain_tags", "strict"], declared: ["vault"] },
    });
    expect(filter.message).toContain("silently dropping");

    // Neither refused query reached the plugin: its call counter moved by one, for this query only.
    expect((await open.query(q()))[0].id).toBe("call-2");
  });

  it("defaults to mode fts and no extra filters when plugin.json declares none", async () => {
    await expect(host.memory("overlimit").query(q({ mode: "semantic" }))).rejects.toMatchObject({
      code: "PB_ERR_MODE_UNDECLARED",
      data: { modes: ["fts"] },
    });
    await expect(host.memory("overlimit").query(q({ vault: "v" }))).rejects.toMatchObject({
      code: "PB_ERR_FILTER_UNDECLARED",
    });
  });

  it("refuses a get that answers another record and a write that answers another id", async () => {
    await expect(host.memory("wrongid").get!("a")).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining('asked for id "a"'),
    });
    await expect(host.memory("wrongid").write!({ id: "mine", summary: "s" })).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_VIOLATION",
      message: expect.stringContaining("invented"),
    });
    await expect(host.memory("wrongid").write!({ summary: "s", score: 1 } as never)).rejects.toMatchObject({
      code: "PB_ERR_CONTRACT_ARGS",
    });
  });
});
