/**
 * Retries that cannot duplicate. A client that may retry a write (its replica died, its
 * connection dropped, a balancer answered 502) sends the same key with every attempt, in the
 * request's `_meta["patchbay/idempotency-key"]`:
 *
 * - A memory-store `write` whose record has no `id` gets one derived from the instance and the
 *   key, so every attempt, on any replica, writes the same record (the stores upsert on id).
 *   That holds across replicas because the record id is the shared state.
 * - Any other tool call is remembered on the replica that ran it: a retry with the same key
 *   there joins the attempt still running or gets its answer again, without a second call.
 *   The book is per process and bounded, so it dedupes retries that reach the same replica
 *   within IDEMPOTENCY_TTL_MS; docs/deployment.md says which writes are safe across replicas.
 */
import { createHash } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const IDEMPOTENCY_META_KEY = "patchbay/idempotency-key";
/** Keys longer than this are refused: a key names an attempt, it is no payload. */
export const MAX_IDEMPOTENCY_KEY = 200;
/** How many answered keys one gateway remembers (oldest forgotten first). */
export const MAX_IDEMPOTENCY_ENTRIES = 10_000;
/** How long an answered key is remembered. */
export const IDEMPOTENCY_TTL_MS = 10 * 60_000;

/** The key a request carries, or null; a key that is not a short non-empty string is an error message. */
export function idempotencyKeyOf(meta: Record<string, unknown> | undefined): string | null | { invalid: string } {
  const key = meta?.[IDEMPOTENCY_META_KEY];
  if (key === undefined) return null;
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY) {
    return {
      invalid: `_meta["${IDEMPOTENCY_META_KEY}"] must be a non-empty string of at most ${MAX_IDEMPOTENCY_KEY} characters`,
    };
  }
  return key;
}

/** The record id a keyed memory write without an id gets: the same on every replica. */
export function derivedRecordId(instance: string, key: string): string {
  return `idem-${createHash("sha256").update(`${instance}\0${key}`).digest("hex").slice(0, 32)}`;
}

interface Entry {
  fingerprint: string;
  answer: Promise<CallToolResult>;
  at: number;
}

export type Remembered =
  | { kind: "run"; settle: (answer: Promise<CallToolResult>) => Promise<CallToolResult> }
  | { kind: "again"; answer: Promise<CallToolResult> }
  | { kind: "conflict" };

/** Answered (and running) keyed calls of one gateway, by tool name and key. */
export class IdempotencyBook {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly max = MAX_IDEMPOTENCY_ENTRIES,
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
  ) {}

  /**
   * What to do with a keyed call: run it (and hand its answer to `settle`), return the earlier
   * attempt's answer, or refuse because the key came with other arguments.
   */
  begin(tool: string, key: string, args: unknown): Remembered {
    const id = `${tool}\0${key}`;
    const fingerprint = createHash("sha256")
      .update(JSON.stringify(args ?? null))
      .digest("hex");
    const now = Date.now();
    const known = this.entries.get(id);
    if (known && now - known.at <= this.ttlMs)
      return known.fingerprint === fingerprint ? { kind: "again", answer: known.answer } : { kind: "conflict" };
    if (known) this.entries.delete(id);
    return {
      kind: "run",
      settle: (answer) => {
        const entry: Entry = { fingerprint, answer, at: now };
        this.entries.set(id, entry);
        while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
        // A failed attempt is forgotten so the retry runs again; only an answer is remembered.
        void answer.then(
          (r) => (r.isError ? this.forget(id, entry) : undefined),
          () => this.forget(id, entry),
        );
        return answer;
      },
    };
  }

  get size(): number {
    return this.entries.size;
  }

  private forget(id: string, entry: Entry): void {
    if (this.entries.get(id) === entry) this.entries.delete(id);
  }
}
