import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import plugin from "../../plugins/sqlite-memory/src/index.js";
import { PortableMemorySchema } from "../../src/contract/schemas/stores.js";
import { makeCtx } from "./_ctx.js";

type Store = Awaited<ReturnType<typeof plugin.create>>;

let dir: string;
const open: Store[] = [];

function makeStore(path: string): Store {
  const store = plugin.create(plugin.config.parse({ path }), makeCtx().ctx) as Store;
  open.push(store);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-sqlite-memory-"));
});

afterEach(async () => {
  for (const store of open.splice(0)) await store.close?.();
  rmSync(dir, { recursive: true, force: true });
});

const q = (query: string, extra: Record<string, unknown> = {}) => ({ query, limit: 10, mode: "fts", ...extra });

describe("sqlite-memory", () => {
  it("creates the parent folder, uses WAL, and is healthy", async () => {
    const path = join(dir, "nested", "deeper", "memory.db");
    const store = makeStore(path);
    expect(await store.health_check()).toBe(true);
    expect(existsSync(path)).toBe(true);
    await store.close?.();
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    raw.close();
  });

  it("round-trips write and get, keeping curated fields top-level and out of metadata", async () => {
    const store = makeStore(join(dir, "m.db"));
    const record = {
      summary: "Deploy the billing service",
      detail: "Use the blue/green pipeline.",
      thread_status: "open",
      pinned: true,
      confidence: 0.8,
      domain_tags: ["ops", "billing"],
      recipients: ["alice"],
      agent_id: "ops-bot",
      vault: "work",
      expires_at: Date.now() + 60_000,
      // a curated key inside metadata is hoisted, an unknown top-level key goes to metadata
      metadata: { source: "runbook", knowledge_type: "procedure" },
      ticket: "OPS-12",
    };
    const { id, created_at } = await store.write!(record);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof created_at).toBe("number");

    const got = await store.get!(id);
    expect(got).not.toBeNull();
    expect(PortableMemorySchema.parse(got)).toBeTruthy();
    expect(got).toMatchObject({
      id,
      summary: record.summary,
      detail: record.detail,
      thread_status: "open",
      pinned: true,
      confidence: 0.8,
      domain_tags: ["ops", "billing"],
      recipients: ["alice"],
      agent_id: "ops-bot",
      vault: "work",
      knowledge_type: "procedure",
      created_at,
    });
    expect(got!.metadata).toEqual({ source: "runbook", ticket: "OPS-12" });
    for (const field of ["thread_status", "pinned", "knowledge_type", "created_at", "domain_tags"]) {
      expect(got!.metadata).not.toHaveProperty(field);
    }
    expect(await store.get!("no-such-id")).toBeNull();
  });

  it("keeps a given id, and a rewrite replaces the record but keeps created_at", async () => {
    const store = makeStore(join(dir, "m.db"));
    const first = await store.write!({ id: "note-1", summary: "alpha version" });
    expect(first.id).toBe("note-1");
    const second = await store.write!({ id: "note-1", summary: "beta version" });
    expect(second.created_at).toBe(first.created_at);
    expect((await store.get!("note-1"))!.summary).toBe("beta version");
    // the FTS index followed the update
    expect(await store.query(q("alpha"))).toEqual([]);
    expect((await store.query(q("beta"))).map((m) => m.id)).toEqual(["note-1"]);
  });

  it("refuses wrongly typed curated fields instead of storing them", async () => {
    const store = makeStore(join(dir, "m.db"));
    await expect(store.write!({ summary: "x", pinned: "yes" } as never)).rejects.toThrow(/pinned must be a boolean/);
    await expect(store.write!({ summary: "x", domain_tags: "ops" } as never)).rejects.toThrow(/domain_tags/);
  });

  it("ranks FTS matches by bm25 and returns positive scores", async () => {
    const store = makeStore(join(dir, "m.db"));
    await store.write!({
      id: "weak",
      summary: "Weekly notes",
      detail: "kubernetes came up once among many other topics",
    });
    await store.write!({
      id: "strong",
      summary: "Kubernetes upgrade",
      detail: "kubernetes kubernetes cluster upgrade plan",
    });
    await store.write!({ id: "none", summary: "Lunch menu", detail: "soup" });
    const results = await store.query(q("kubernetes"));
    expect(results.map((r) => r.id)).toEqual(["strong", "weak"]);
    expect(results[1].score!).toBeGreaterThan(0);
    expect(results[0].score!).toBeGreaterThan(results[1].score!);
    for (const r of results) expect(PortableMemorySchema.parse(r)).toBeTruthy();
    // stemming: "upgrading" finds "upgrade"
    expect((await store.query(q("upgrading"))).map((r) => r.id)).toEqual(["strong"]);
  });

  it("matches any term by default and every term with match: all", async () => {
    const store = makeStore(join(dir, "m.db"));
    await store.write!({ id: "a", summary: "redis cache eviction" });
    await store.write!({ id: "b", summary: "redis replication" });
    expect((await store.query(q("cache replication"))).map((r) => r.id).sort()).toEqual(["a", "b"]);
    expect((await store.query(q("redis cache", { match: "all" }))).map((r) => r.id)).toEqual(["a"]);
  });

  it("never throws on hostile query strings", async () => {
    const store = makeStore(join(dir, "m.db"));
    await store.write!({ id: "x", summary: 'He said "hello" (NEAR the end) -- with a* star: and colon' });
    const hostile = [
      '"',
      '""',
      '"unterminated',
      "*",
      "a*",
      "hello*",
      ":",
      "summary:hello",
      "NEAR(hello end)",
      "NEAR",
      "AND",
      "OR",
      "NOT",
      "-hello",
      "hello -",
      "(",
      ")",
      "((hello",
      "hello)",
      "^hello",
      "{summary detail}: hello",
      "'; DROP TABLE memories; --",
      "\u0000",
      "hello\u0000world",
      "🙂 hello",
      "+",
      "hello AND",
      "OR OR OR",
      "\\",
      "%_",
      "a".repeat(5000),
      Array.from({ length: 500 }, (_, i) => `w${i}`).join(" "),
    ];
    for (const text of hostile) {
      const results = await store.query(q(text));
      expect(Array.isArray(results), text).toBe(true);
    }
    // random mixes of FTS5 syntax characters (deterministic PRNG)
    const alphabet = [
      '"',
      "*",
      ":",
      "(",
      ")",
      "-",
      "^",
      "+",
      "{",
      "}",
      " ",
      "NEAR",
      "AND",
      "OR",
      "NOT",
      "hello",
      "\u0000",
      "\\",
      "'",
      ",",
      ".",
    ];
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 300; i++) {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => alphabet[Math.floor(next() * alphabet.length)],
      ).join("");
      await expect(store.query(q(text)), JSON.stringify(text)).resolves.toBeInstanceOf(Array);
      await expect(store.query(q(text, { match: "all" })), JSON.stringify(text)).resolves.toBeInstanceOf(Array);
    }
    // operators are searched as words, not applied
    expect((await store.query(q('"hello"'))).map((r) => r.id)).toEqual(["x"]);
    expect((await store.query(q("NEAR(hello end)"))).map((r) => r.id)).toEqual(["x"]);
    expect((await store.query(q("-hello"))).map((r) => r.id)).toEqual(["x"]);
    // nothing searchable: no results rather than everything
    expect(await store.query(q("*** :: ()"))).toEqual([]);
    expect(await store.health_check()).toBe(true);
  });

  it("returns the most recent records for an empty query, honouring limit", async () => {
    const store = makeStore(join(dir, "m.db"));
    for (let i = 0; i < 5; i++) await store.write!({ id: `r${i}`, summary: `record ${i}`, created_at: 1_000 + i });
    expect((await store.query(q("", { limit: 3 }))).map((r) => r.id)).toEqual(["r4", "r3", "r2"]);
    expect((await store.query(q("   ", { limit: 1 }))).map((r) => r.id)).toEqual(["r4"]);
    expect(await store.query(q("record", { limit: 2 }))).toHaveLength(2);
    expect(await store.query(q("record", { limit: 100 }))).toHaveLength(5);
  });

  it("filters by domain_tag, agent_id, vault and pinned; hides expired records unless asked", async () => {
    const store = makeStore(join(dir, "m.db"));
    await store.write!({
      id: "1",
      summary: "shared topic",
      domain_tags: ["ops", "db"],
      agent_id: "a1",
      vault: "v1",
      pinned: true,
    });
    await store.write!({ id: "2", summary: "shared topic", domain_tags: ["ops"], agent_id: "a2", vault: "v1" });
    await store.write!({
      id: "3",
      summary: "shared topic",
      domain_tags: ["db"],
      agent_id: "a1",
      vault: "v2",
      expires_at: Date.now() - 1,
    });
    const ids = async (extra: Record<string, unknown>) =>
      (await store.query(q("shared", extra))).map((r) => r.id).sort();
    expect(await ids({})).toEqual(["1", "2"]);
    expect(await ids({ include_expired: true })).toEqual(["1", "2", "3"]);
    expect(await ids({ domain_tag: "ops" })).toEqual(["1", "2"]);
    expect(await ids({ domain_tag: ["ops", "db"] })).toEqual(["1"]);
    expect(await ids({ agent_id: "a1", include_expired: true })).toEqual(["1", "3"]);
    expect(await ids({ vault: "v1" })).toEqual(["1", "2"]);
    expect(await ids({ pinned: true })).toEqual(["1"]);
    expect((await store.query(q("", { agent_id: "a2" }))).map((r) => r.id)).toEqual(["2"]);
  });

  it("refuses unknown filters and unsupported modes instead of ignoring them", async () => {
    const store = makeStore(join(dir, "m.db"));
    await expect(store.query(q("x", { domian_tag: "ops" }))).rejects.toThrow(/unsupported filter "domian_tag"/);
    await expect(store.query({ query: "x", limit: 5, mode: "semantic" })).rejects.toThrow(
      /mode "semantic" is not supported/,
    );
    await expect(store.query(q("x", { limit: 0 }))).rejects.toThrow(/limit/);
  });

  it("persists across instances and supports :memory:", async () => {
    const path = join(dir, "persist.db");
    const a = makeStore(path);
    await a.write!({ id: "keep", summary: "persistent fact" });
    await a.close?.();
    const b = makeStore(path);
    expect((await b.get!("keep"))!.summary).toBe("persistent fact");

    const mem = makeStore(":memory:");
    expect(await mem.health_check()).toBe(true);
    await mem.write!({ id: "m", summary: "ephemeral" });
    expect((await mem.query(q("ephemeral"))).map((r) => r.id)).toEqual(["m"]);
    // the host resolves path fields against the config folder; ":memory:" must survive that
    const resolvedMem = makeStore(join(dir, ":memory:"));
    expect(await resolvedMem.health_check()).toBe(true);
    expect(existsSync(join(dir, ":memory:"))).toBe(false);
  });

  it("reports unhealthy (without throwing) when the database cannot be opened", async () => {
    const a = makeStore(join(dir, "seed.db"));
    await a.write!({ summary: "x" });
    await a.close?.();
    // a path whose parent is a regular file can never be created
    const fileAsDir = join(dir, "seed.db", "memory.db");
    const store = makeStore(fileAsDir);
    expect(await store.health_check()).toBe(false);
    await expect(store.query(q("x"))).rejects.toThrow(/cannot open/);
  });

  it("validates its config", () => {
    expect(() => plugin.config.parse({})).toThrow();
    expect(() => plugin.config.parse({ path: "" })).toThrow();
    expect(() => plugin.config.parse({ path: "/x.db", pth: "typo" })).toThrow();
  });
});
