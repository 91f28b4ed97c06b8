/**
 * Where the issuer's signing keys are, and the keys themselves: gateway.oauth.jwksUri, or the
 * jwks_uri of the issuer's metadata (RFC 8414, then OpenID Connect Discovery), read once and kept.
 * The key set is jose's remote JWKS: cached, and refetched on an unknown `kid` at most once per
 * REFETCH_COOLDOWN_MS, so a flood of tokens naming made-up keys costs the issuer nothing.
 *
 * jose retries a failed fetch on the very next token; here a failure (metadata or keys) is kept for
 * RETRY_AFTER_MS and answered from memory, so an unreachable issuer is not asked again per request.
 */
import { createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey } from "jose";

const REFETCH_COOLDOWN_MS = 30_000;
export const RETRY_AFTER_MS = 10_000;
const TIMEOUT_MS = 5_000;

/** The issuer's metadata or keys could not be read: a 503, not the token's fault. */
export class OAuthUnavailable extends Error {
  constructor(
    message: string,
    /** Seconds until the issuer is asked again. */
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

/** Requests made to the issuer, for tests and metrics: proof that nothing amplifies. */
export interface FetchCounts {
  jwks: number;
  metadata: number;
}

/**
 * The metadata documents to try, in order. RFC 8414 inserts the well-known segment before an
 * issuer's path; OpenID Connect appends it; an issuer without a path gets both names at the root.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  const at = (p: string) => `${url.origin}${p}`;
  if (path === "") return [at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")];
  return [
    at(`/.well-known/oauth-authorization-server${path}`),
    at(`/.well-known/openid-configuration${path}`),
    at(`${path}/.well-known/openid-configuration`),
  ];
}

export class KeySource {
  private jwksUri: string | null;
  private remote: ReturnType<typeof createRemoteJWKSet> | null = null;
  private pending: Promise<ReturnType<typeof createRemoteJWKSet>> | null = null;
  /** Until when a failure is answered from memory, and what it was. */
  private failedUntil = 0;
  private failure = "";

  constructor(
    private readonly issuer: string,
    jwksUri: string | null,
    readonly fetches: FetchCounts,
  ) {
    this.jwksUri = jwksUri;
  }

  /** For jose's jwtVerify: called only after the header parsed and its algorithm was allowed. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const wait = this.failedUntil - Date.now();
    if (wait > 0) throw new OAuthUnavailable(this.failure, Math.ceil(wait / 1000));
    const remote = this.remote ?? (await this.keySet());
    try {
      return await remote(header, token);
    } catch (err) {
      // Only a failed fetch makes the issuer unavailable; anything else is the token's fault (an
      // unknown kid, ...). Deciding by inclusion keeps a crafted token from ever causing a 503.
      if (fromFetch(err)) throw this.failed(`its keys (JWKS) could not be read: ${reason(err)}`);
      throw err;
    }
  };

  private keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.pending ??= this.resolveJwksUri()
      .then((uri) => {
        this.remote = createRemoteJWKSet(new URL(uri), {
          cooldownDuration: REFETCH_COOLDOWN_MS,
          timeoutDuration: TIMEOUT_MS,
          [customFetch]: (url: string, init: RequestInit) => {
            this.fetches.jwks++;
            // jose turns a TimeoutError into JWKSTimeout and passes any other rejection on as is.
            return fetch(url, init).catch((err: Error) => {
              throw err.name === "TimeoutError" ? err : new JwksFetchFailed(err);
            });
          },
        });
        return this.remote;
      })
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private async resolveJwksUri(): Promise<string> {
    if (this.jwksUri) return this.jwksUri;
    const problems: string[] = [];
    for (const url of metadataUrls(this.issuer)) {
      this.fetches.metadata++;
      try {
        const res = await fetch(url, {
          redirect: "manual",
          signal: AbortSignal.timeout(TIMEOUT_MS),
          headers: { accept: "application/json" },
        });
        if (res.status !== 200) {
          await res.body?.cancel();
          problems.push(`${url} answered ${res.status}`);
          continue;
        }
        const meta = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
        // RFC 8414 §3.3: metadata naming another issuer must not be used (it could be anyone's keys).
        if (meta.issuer !== this.issuer) {
          problems.push(`${url} names another issuer`);
          continue;
        }
        if (typeof meta.jwks_uri !== "string" || !/^https?:\/\//.test(meta.jwks_uri)) {
          problems.push(`${url} has no http(s) jwks_uri`);
          continue;
        }
        this.jwksUri = meta.jwks_uri;
        return meta.jwks_uri;
      } catch (err) {
        problems.push(`${url}: ${reason(err)}`);
      }
    }
    throw this.failed(`its metadata could not be read (${problems.join("; ")})`);
  }

  private failed(what: string): OAuthUnavailable {
    this.failedUntil = Date.now() + RETRY_AFTER_MS;
    this.failure = `The authorization server ${this.issuer} is unavailable: ${what}. Retried after ${RETRY_AFTER_MS / 1000} s.`;
    return new OAuthUnavailable(this.failure, RETRY_AFTER_MS / 1000);
  }
}

class JwksFetchFailed extends Error {
  constructor(readonly failure: Error) {
    super(failure.message, { cause: failure.cause });
  }
}

/** jose's answers about the key set document itself: no 200, not JSON, not a key set, no answer. */
const FETCH_CODES = new Set(["ERR_JOSE_GENERIC", "ERR_JWKS_INVALID", "ERR_JWKS_TIMEOUT"]);

const fromFetch = (err: unknown): boolean =>
  err instanceof JwksFetchFailed || (err instanceof errors.JOSEError && FETCH_CODES.has(err.code));

/** A fetch failure in a few words: undici hides the socket error in `cause`. */
function reason(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || err instanceof errors.JWKSTimeout) return `no answer within ${TIMEOUT_MS / 1000} s`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}
