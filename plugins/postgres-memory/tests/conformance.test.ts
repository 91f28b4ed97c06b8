/**
 * postgres-memory against the memory-store kit, booted by the host like any plugin, on a real
 * PostgreSQL named by PATCHBAY_TEST_PG_URL (`eval "$(.ci/postgres.sh)"` starts one). Without it
 * every test here is skipped with a printed reason, never silently passed. Each run uses fresh
 * tables (created by the plugin itself, dropped at the end).
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, registerConformance } from "patchbay/testing";

const URL_VAR = "PATCHBAY_TEST_PG_URL";
const url = process.env[URL_VAR];
const skip = url
  ? false
  : `${URL_VAR} is not set; start PostgreSQL with \`eval "$(.ci/postgres.sh)"\` to run these tests`;
if (skip) console.warn(`[postgres-memory] SKIPPED: ${skip}`);

const plugin = fileURLToPath(new URL("..", import.meta.url));
const run = randomBytes(4).toString("hex");
const tables = [`kit_${run}`, `shared_${run}`];

afterAll(async () => {
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const t of tables) await client.query(`DROP TABLE IF EXISTS "${t}"`);
  await client.end();
});

await registerConformance("memory-store", {
  plugin,
  skip,
  env: { ...process.env },
  // Through ${VAR}, as an adopter would write it: the host scrubs the resolved value everywhere.
  config: { connection_string: `\${${URL_VAR}}`, table: tables[0] },
  invalidConfig: {
    connection_string: "postgres://patchbay:wrong@127.0.0.1:1/patchbay_test",
    table: tables[0],
    connect_timeout_ms: 1_000,
  },
});

describe.skipIf(!url)("postgres-memory: the store several hosts share", () => {
  const config = () => ({
    plugins: [],
    memoryStores: { shared: { plugin: "postgres-memory", config: { connection_string: url, table: tables[1] } } },
  });

  it("two hosts creating the table at once both come up, and each sees the other's writes", async () => {
    const [a, b] = await Promise.all([
      createHost({ config: config(), logLevel: "silent" }),
      createHost({ config: config(), logLevel: "silent" }),
    ]);
    try {
      const written = await a.memory("shared").write!({
        summary: "deploy frozen until Friday",
        domain_tags: ["ops"],
        pinned: true,
      });
      const found = await b.memory("shared").query({ query: "frozen deploys", limit: 5, mode: "fts" });
      expect(found.map((m) => m.id)).toContain(written.id);
      expect(found.find((m) => m.id === written.id)).toMatchObject({ pinned: true, domain_tags: ["ops"] });
      expect(found[0].score).toBeGreaterThan(0);
      await b.memory("shared").write!({ id: written.id, summary: "deploy freeze lifted" });
      const again = await a.memory("shared").get!(written.id);
      expect(again).toMatchObject({ summary: "deploy freeze lifted", created_at: written.created_at });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("never fails on hostile query text, and filters by tag, vault and expiry", async () => {
    const host = await createHost({ config: config(), logLevel: "silent" });
    try {
      const mem = host.memory("shared");
      for (const q of [
        "'); DROP TABLE x; --",
        "a & b | !c",
        "(((",
        ":*",
        "\\",
        "\u0000nul",
        "the and of",
        "🎛️",
        "x".repeat(5_000),
      ]) {
        await expect(mem.query({ query: q, limit: 3, mode: "fts" })).resolves.toBeInstanceOf(Array);
      }
      await mem.write!({ summary: `tagged ${run}`, domain_tags: ["a", "b"], vault: "v1" });
      await mem.write!({ summary: `tagged ${run} expired`, domain_tags: ["a"], expires_at: Date.now() - 1_000 });
      expect(await mem.query({ query: `tagged ${run}`, limit: 10, mode: "fts", domain_tag: ["a", "b"] })).toHaveLength(
        1,
      );
      expect(
        await mem.query({ query: `tagged ${run}`, limit: 10, mode: "fts", vault: "v1", match: "all" }),
      ).toHaveLength(1);
      expect(await mem.query({ query: `tagged ${run}`, limit: 10, mode: "fts", domain_tag: "a" })).toHaveLength(1);
      expect(
        await mem.query({ query: `tagged ${run}`, limit: 10, mode: "fts", domain_tag: "a", include_expired: true }),
      ).toHaveLength(2);
      await expect(mem.query({ query: "x", limit: 1, mode: "semantic" })).rejects.toMatchObject({
        code: "PB_ERR_MODE_UNDECLARED",
      });
    } finally {
      await host.close();
    }
  });

  it("keeps the connection string's password out of errors and the boot report", async () => {
    const bad = `postgres://patchbay:hunter2-secret@127.0.0.1:1/patchbay_test`;
    const host = await createHost({
      config: {
        plugins: [],
        memoryStores: {
          down: {
            plugin: "postgres-memory",
            required: false,
            config: { connection_string: bad, connect_timeout_ms: 500 },
          },
        },
      },
      logLevel: "silent",
    });
    try {
      expect(JSON.stringify(host.report())).not.toContain("hunter2-secret");
      const err = await host
        .memory("down")
        .query({ query: "x", limit: 1, mode: "fts" })
        .catch((e: Error) => e);
      expect(String((err as Error).message)).not.toContain("hunter2-secret");
    } finally {
      await host.close();
    }
  });
});
