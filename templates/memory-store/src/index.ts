/**
 * __NAME__: a memory-store plugin for Patchbay.
 *
 * As scaffolded it works end to end: PortableMemory records live in this instance's worker
 * (gone when the instance stops) and "fts" queries rank them by how many query words they
 * contain. Each place you change to reach your own substrate (a database, a vector index, an
 * HTTP API) is marked "SUBSTRATE:". The host already guarantees, before a call reaches you:
 * the arguments match the contract, the query mode is one plugin.json "modes" declares, and
 * no filter key beyond query/limit/mode arrives unless plugin.json "filters" declares it.
 * After you answer it checks the result the same way (shape, `limit`, ids, no curated field
 * duplicated into metadata), so a mistake here fails loudly, at the call that made it.
 */
import { randomUUID } from "node:crypto";
import { definePlugin, hoistCuratedFields, z } from "patchbay/plugin";
import type { MemoryStore, MemoryWrite, PortableMemory, QueryFilters } from "patchbay/plugin";

// SUBSTRATE: the settings your store needs. Give each a default where one makes sense, so the
// two-line connectors.json entry boots; mark secrets with .meta({ secret: true }) (scrubbed from
// every log and report) and file paths with .meta({ path: true }) (resolved against the folder of
// connectors.json). The instance config is validated against this schema at boot.
const config = z.strictObject({
  max_records: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .meta({ description: "How many records to keep; the oldest are dropped first." }),
});

export default definePlugin({
  kind: "memory-store",
  config,
  create(cfg, ctx): MemoryStore {
    // SUBSTRATE: open your client here, but do not wait for the network: create() must return
    // quickly (the host gives it a start deadline). Connect lazily on the first call, or check
    // reachability in health_check().
    const records = new Map<string, PortableMemory>();

    return {
      async health_check() {
        // SUBSTRATE: ping your store. Return false (or throw) when it cannot serve; a required
        // instance then fails the boot, an optional one is reported degraded.
        return true;
      },

      async query(filters: QueryFilters): Promise<PortableMemory[]> {
        // SUBSTRATE: translate the filters into your store's query. Pass ctx.signal to anything
        // that can be cancelled (fetch, database drivers): it aborts when the call's deadline passes.
        const terms = words(filters.query);
        const scored: PortableMemory[] = [];
        for (const record of records.values()) {
          const text = new Set(
            words(`${record.summary} ${record.detail ?? ""} ${(record.domain_tags ?? []).join(" ")}`),
          );
          const hits = terms.filter((t) => text.has(t)).length;
          // An empty query lists the most recent records; otherwise a record must match a word.
          if (terms.length > 0 && hits === 0) continue;
          scored.push({ ...record, score: terms.length === 0 ? 0 : hits / terms.length });
        }
        scored.sort((a, b) => (b.score ?? 0) - (a.score ?? 0) || (b.created_at ?? 0) - (a.created_at ?? 0));
        return scored.slice(0, filters.limit);
      },

      async write(record: MemoryWrite): Promise<{ id: string; created_at: number }> {
        // SUBSTRATE: insert or replace the record. Keep curated fields (pinned, domain_tags, ...)
        // at the top level; never copy one into metadata as well (the host refuses that).
        const clean = hoistCuratedFields(structuredClone(record));
        const id = clean.id ?? randomUUID();
        const created_at = clean.created_at ?? records.get(id)?.created_at ?? Date.now();
        records.delete(id); // re-insert, so Map order stays oldest-first for eviction
        records.set(id, { ...clean, id, created_at });
        while (records.size > cfg.max_records) records.delete(records.keys().next().value as string);
        ctx.log.debug("memory written", { id });
        return { id, created_at };
      },

      async get(id: string): Promise<PortableMemory | null> {
        // SUBSTRATE: fetch one record by id; null when there is none.
        const record = records.get(id);
        return record ? structuredClone(record) : null;
      },

      async close() {
        // SUBSTRATE: close connections and flush buffers; the host calls this on shutdown.
        records.clear();
      },
    };
  },
});

/** Lower-case words of letters and digits: the whole "full-text index" of this example. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
