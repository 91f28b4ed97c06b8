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

/**
 * `unsupported()` for plugin authors: the plugin implements an optional method, but what it talks
 * to cannot do it (an MCP server without `resources.subscribe`). The caller gets
 * PB_ERR_UNSUPPORTED with the plugin's message, not PB_ERR_PLUGIN_THREW (a bug) or
 * PB_ERR_NOT_IMPLEMENTED (the method is missing from the plugin).
 */
export class UnsupportedError extends Error {
  readonly code = "PB_ERR_UNSUPPORTED";
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedError";
  }
}

/** `throw unsupported("the server at https://… does not offer resource subscriptions")` */
export function unsupported(message: string): UnsupportedError {
  return new UnsupportedError(message);
}
