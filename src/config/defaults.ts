/**
 * The values connectors.json's `defaults` takes when it does not say. A module of its own, free
 * of zod: the command reads the heap limit before it loads the config's schema
 * (spawn/warm-threads.ts).
 */
export const DEFAULTS = Object.freeze({
  timeout_ms: 30_000,
  health_timeout_ms: 5_000,
  max_memory_mb: 512,
  health_interval_ms: 30_000,
});

/** gateway.audit when it does not say: 10 MiB a file and five rotated files, ~60 MiB at most. */
export const AUDIT_DEFAULTS = Object.freeze({ maxBytes: 10 * 1024 * 1024, keep: 5 });
