/**
 * `unavailable()` for plugin authors (re-exported by `patchbay/plugin`): throw it when the
 * substrate cannot be reached, and the caller gets PB_ERR_SUBSTRATE_UNAVAILABLE (retryable), not
 * PB_ERR_PLUGIN_THREW (a bug). Errors with a known errno code (ECONNREFUSED, ENOTFOUND, ...) are
 * classified without it; this is for what only the plugin knows ("the API answered 503").
 */
export class UnavailableError extends Error {
  readonly code = "PB_ERR_SUBSTRATE_UNAVAILABLE";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UnavailableError";
  }
}

/** `throw unavailable("PostgreSQL at db:5432 refused the connection", err)` */
export function unavailable(message: string, cause?: unknown): UnavailableError {
  return new UnavailableError(message, cause === undefined ? undefined : { cause });
}
