/**
 * The memory-store kit: query answers contract-valid PortableMemory records within `limit` in
 * every declared mode; undeclared modes and filter keys are refused (never silently dropped);
 * and, for stores that declare them, write → get → query round-trips every seed field with
 * curated fields at the top level only.
 */
import { declaredModes } from "../../contract/manifest.js";
import { CURATED_MEMORY_FIELDS } from "../../contract/memory.js";
import { PortableMemorySchema } from "../../contract/schemas/stores.js";
import type { MemoryWrite, PortableMemory } from "../../contract/types.js";
import { attempt, ensure, preview, refused } from "../assert.js";
import type { Claim, KitContext } from "../types.js";
import { declares } from "./common.js";

const needs =
  (...methods: string[]) =>
  (kit: KitContext) => {
    const missing = methods.filter((m) => !declares(kit, m));
    return missing.length ? `the plugin does not declare ${missing.join(" and ")}` : null;
  };

const firstMode = (kit: KitContext) => declaredModes(kit.manifest)[0];

/** Curated fields compared as written: lists are compared as sets, and the store assigns created_at. */
const SCALAR_CURATED = CURATED_MEMORY_FIELDS.filter(
  (f) => f !== "domain_tags" && f !== "recipients" && f !== "created_at",
);

/** A record using every seed field a store is asked to keep. */
function fullRecord(kit: KitContext, n: number): MemoryWrite {
  return {
    summary: `conformance ${kit.token} record ${n}`,
    detail: `written by the patchbay conformance kit (${kit.token})`,
    thread_status: "open",
    pinned: true,
    confidence: 0.75,
    domain_tags: ["conformance", "kit"],
    payload_type: "note",
    knowledge_type: "fact",
    recipients: ["perry"],
    expires_at: Date.now() + 86_400_000,
    agent_id: "kit-agent",
    vault: "kit",
    metadata: { source: "patchbay-kit", n },
  };
}

export const memoryStoreClaims: Claim[] = [
  {
    name: "query answers contract-valid records in every declared mode",
    async run(kit) {
      // An empty answer proves nothing about the records a mode answers: a store that can write is
      // given one record first, whose summary is then the query, and every mode must answer it.
      const summary = `conformance ${kit.token} every mode`;
      const seeded = declares(kit, "write")
        ? await attempt("write", () => kit.call<{ id: string }>("write", { summary, domain_tags: ["conformance"] }))
        : null;
      for (const mode of declaredModes(kit.manifest)) {
        const records = await attempt(`query mode "${mode}"`, () =>
          kit.call<PortableMemory[]>("query", { query: seeded ? summary : kit.token, limit: 5, mode }),
        );
        ensure(Array.isArray(records), `query mode "${mode}" answered ${preview(records)}`);
        ensure(records.length <= 5, `query mode "${mode}" with limit 5 answered ${records.length} records`);
        for (const record of records)
          ensure(
            PortableMemorySchema.safeParse(record).success,
            `query mode "${mode}" answered a record that is not a PortableMemory: ${preview(record)}`,
          );
        if (seeded)
          ensure(
            records.length > 0,
            `query mode "${mode}" answered no records, though the store holds one ("${seeded.id}") whose summary is the query`,
          );
      }
    },
  },
  {
    name: "an undeclared query mode is refused with PB_ERR_MODE_UNDECLARED",
    async run(kit) {
      const err = await refused(
        kit.call("query", { query: "x", limit: 1, mode: "pb-kit-undeclared" }),
        "PB_ERR_MODE_UNDECLARED",
        "query with an undeclared mode",
      );
      ensure(err.message.includes("pb-kit-undeclared"), `the error does not name the mode: ${err.message}`);
    },
  },
  {
    name: "an undeclared filter key is refused with PB_ERR_FILTER_UNDECLARED",
    async run(kit) {
      const err = await refused(
        kit.call("query", { query: "x", limit: 1, mode: firstMode(kit), pb_kit_undeclared: 1 }),
        "PB_ERR_FILTER_UNDECLARED",
        "query with an undeclared filter",
      );
      ensure(err.message.includes("pb_kit_undeclared"), `the error does not name the filter: ${err.message}`);
    },
  },
  {
    name: "write → get → query round-trips every seed field, curated fields at the top level",
    skip: needs("write", "get"),
    async run(kit) {
      const input = fullRecord(kit, 1);
      const written = await attempt("write", () => kit.call<{ id: string; created_at: number }>("write", input));
      ensure(written.created_at > 0, `write answered created_at ${written.created_at}`);
      const got = await attempt("get", () => kit.call<PortableMemory | null>("get", written.id));
      ensure(got, `get("${written.id}") answered null right after write`);
      for (const key of ["summary", "detail", ...SCALAR_CURATED] as const) {
        ensure(
          JSON.stringify(got[key]) === JSON.stringify(input[key]),
          `get() answered ${key} ${preview(got[key])}, written ${preview(input[key])}`,
        );
      }
      for (const key of ["domain_tags", "recipients"] as const) {
        ensure(
          JSON.stringify([...(got[key] ?? [])].sort()) === JSON.stringify([...(input[key] ?? [])].sort()),
          `get() answered ${key} ${preview(got[key])}, written ${preview(input[key])}`,
        );
      }
      ensure(got.metadata?.source === "patchbay-kit", `get() lost metadata.source: ${preview(got.metadata)}`);
      ensure(typeof got.created_at === "number", `get() answered no created_at`);
      const found = await attempt("query", () =>
        kit.call<PortableMemory[]>("query", { query: kit.token, limit: 10, mode: firstMode(kit) }),
      );
      ensure(
        found.some((r) => r.id === written.id),
        `query for the written record's words did not find it (ids: ${found.map((r) => r.id).join(", ") || "none"})`,
      );
    },
  },
  {
    name: "query respects limit",
    skip: needs("write"),
    async run(kit) {
      for (let n = 2; n <= 4; n++) await attempt("write", () => kit.call("write", fullRecord(kit, n)));
      const one = await attempt("query", () =>
        kit.call<PortableMemory[]>("query", { query: kit.token, limit: 1, mode: firstMode(kit) }),
      );
      ensure(one.length === 1, `query with limit 1 answered ${one.length} records (at least 3 match)`);
      const three = await attempt("query", () =>
        kit.call<PortableMemory[]>("query", { query: kit.token, limit: 3, mode: firstMode(kit) }),
      );
      ensure(three.length === 3, `query with limit 3 answered ${three.length} records (at least 3 match)`);
    },
  },
  {
    name: "a curated field written inside metadata never comes back duplicated there",
    skip: needs("write", "get"),
    async run(kit) {
      const written = await attempt("write", () =>
        kit.call<{ id: string }>("write", {
          summary: `kit ${kit.token} curated`,
          metadata: { vault: "kit-vault", pinned: false, keep: "me" },
        }),
      );
      // The guard refuses a duplicated record (PB_ERR_CONTRACT_VIOLATION), so attempt() names it.
      const got = await attempt("get", () => kit.call<PortableMemory | null>("get", written.id));
      ensure(got, `get("${written.id}") answered null`);
      ensure(got.metadata?.keep === "me", `a non-curated metadata key was lost: ${preview(got.metadata)}`);
    },
  },
  {
    name: "write with an explicit id is readable under that id; get of an unknown id is null",
    skip: needs("write", "get"),
    async run(kit) {
      const id = `kit-${kit.token}-explicit`;
      const written = await attempt("write", () => kit.call<{ id: string }>("write", { id, summary: "explicit id" }));
      ensure(written.id === id, `write answered id ${written.id} for id ${id}`);
      const got = await attempt("get", () => kit.call<PortableMemory | null>("get", id));
      ensure(got?.summary === "explicit id", `get("${id}") answered ${preview(got)}`);
      const missing = await attempt("get", () => kit.call("get", `kit-${kit.token}-missing`));
      ensure(missing === null, `get of an unknown id answered ${preview(missing)}, expected null`);
    },
  },
];
