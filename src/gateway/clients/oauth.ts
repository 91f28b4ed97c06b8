/**
 * OAuth 2.1 resource-server mode: a bearer JWT from gateway.oauth.issuer is checked with jose
 * (signature by the issuer's JWKS under an asymmetric algorithm allowlist, `iss`, `aud` as this
 * gateway's RFC 8707 resource, `exp`/`nbf` with a minute of skew) and its claims name the client.
 * Loaded by registry.ts only when gateway.oauth is set: a gateway without it never loads jose.
 *
 * A refusal says which check failed (expired, wrong audience, ...) so the holder can fix it, but
 * never repeats the token or any claim from it: the answer may be logged where the token must not be.
 */
import { errors, jwtVerify } from "jose";
import type { ResolvedOAuth, ResolvedOAuthClient } from "../../config/types.js";
import { NO_CLIENT_HINT } from "./caller.js";
import { VerifiedTokens } from "./oauth-cache.js";
import { matchClient, scopesOf, subjectOf } from "./oauth-claims.js";
import { type FetchCounts, KeySource, OAuthUnavailable } from "./oauth-discovery.js";

export interface OAuthCaller {
  client: ResolvedOAuthClient;
  subject: string | null;
  scopes: string[];
}

export interface OAuthRefusal {
  status: 401 | 403 | 503;
  code: "PB_ERR_GATEWAY_TOKEN_INVALID" | "PB_ERR_CLIENT_UNKNOWN" | "PB_ERR_OAUTH_DISCOVERY";
  message: string;
  error: "invalid_token" | "insufficient_scope" | "temporarily_unavailable";
  retryAfter?: number;
  hint?: string;
}

export interface OAuthVerifier {
  /** The caller `token` makes, matched against `clients` (those in force now), or why it is refused. */
  verify(token: string, clients: readonly ResolvedOAuthClient[]): Promise<OAuthCaller | OAuthRefusal>;
  /** RFC 9728 protected-resource metadata; `resource` is the URL the request reached. */
  resourceMetadata(resource: string): Record<string, unknown>;
  /** A WWW-Authenticate value (RFC 6750 §3, with RFC 9728's resource_metadata). */
  challenge(resourceMetadataUrl: string, refusal?: OAuthRefusal): string;
  readonly fetches: FetchCounts;
}

/** Clock skew allowed on exp and nbf (seconds). */
const CLOCK_TOLERANCE_S = 60;
/** Never verify more than this (the registry refuses longer bearers first; this guards direct use). */
const MAX_TOKEN = 8 * 1024;
/** Not configurable at all: the config schema refuses them too, this holds if a spec is built by hand. */
const NEVER = /^(none|HS\d+)$/i;

export function createOAuthVerifier(spec: ResolvedOAuth): OAuthVerifier {
  const algorithms = spec.algorithms.filter((a) => !NEVER.test(a));
  if (algorithms.length === 0) throw new Error("gateway.oauth.algorithms names no asymmetric algorithm");
  const fetches: FetchCounts = { jwks: 0, metadata: 0 };
  const keys = new KeySource(spec.issuer, spec.jwksUri, fetches);
  const verified = new VerifiedTokens(CLOCK_TOLERANCE_S);
  const invalid = (why: string): OAuthRefusal => ({
    status: 401,
    code: "PB_ERR_GATEWAY_TOKEN_INVALID",
    message: `Refused by patchbay serve --http: the access token ${why}.`,
    error: "invalid_token",
  });

  return {
    fetches,
    async verify(token, clients) {
      if (token.length > MAX_TOKEN) return invalid(`is over ${MAX_TOKEN / 1024} KiB`);
      let claims = verified.get(token);
      if (!claims)
        try {
          ({ payload: claims } = await jwtVerify(token, keys.getKey, {
            issuer: spec.issuer,
            audience: spec.audience,
            algorithms,
            clockTolerance: CLOCK_TOLERANCE_S,
            requiredClaims: ["exp"],
          }));
          verified.set(token, claims);
        } catch (err) {
          if (err instanceof OAuthUnavailable)
            return {
              status: 503,
              code: "PB_ERR_OAUTH_DISCOVERY",
              message: err.message,
              error: "temporarily_unavailable",
              retryAfter: err.retryAfter,
            };
          return invalid(whyInvalid(err, spec));
        }
      const client = matchClient(claims, clients);
      if (!client)
        return {
          status: 403,
          code: "PB_ERR_CLIENT_UNKNOWN",
          message:
            "Refused by patchbay serve --http: the access token is valid but matches no gateway client (gateway.oauth.clients matches by sub, client_id, azp or scope).",
          error: "insufficient_scope",
          hint: NO_CLIENT_HINT,
        };
      return { client, subject: subjectOf(claims), scopes: scopesOf(claims) };
    },

    resourceMetadata(resource) {
      const scopes = spec.clients.filter((c) => c.match.claim === "scope").map((c) => c.match.value);
      return {
        // What tokens must name in aud: a client asks the authorization server for exactly this.
        resource: spec.audience || resource,
        authorization_servers: [spec.issuer],
        bearer_methods_supported: ["header"],
        ...(scopes.length > 0 && { scopes_supported: [...new Set(scopes)] }),
        resource_name: "Patchbay gateway",
      };
    },

    challenge(resourceMetadataUrl, refusal) {
      const params = [`resource_metadata="${quoted(resourceMetadataUrl)}"`];
      if (refusal) params.unshift(`error="${refusal.error}"`, `error_description="${quoted(refusal.message)}"`);
      return `Bearer ${params.join(", ")}`;
    },
  };
}

/** What was wrong with a token jose refused, in words that contain nothing taken from it. */
function whyInvalid(err: unknown, spec: ResolvedOAuth): string {
  if (err instanceof errors.JWTExpired) return "has expired";
  if (err instanceof errors.JWTClaimValidationFailed) {
    const claim = err.claim;
    if (claim === "iss") return `was not issued by ${spec.issuer} (wrong issuer)`;
    if (claim === "aud") return `is not for this resource (wrong audience: it must name ${spec.audience})`;
    if (claim === "nbf") return "is not yet valid (nbf is in the future)";
    if (claim === "iat") return "was issued in the future (iat)";
    if (claim === "exp") return "has no expiry (exp)";
    return `has an invalid ${/^[a-z_]{1,20}$/i.test(claim) ? claim : "claim"} claim`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed)
    return `is signed with an algorithm gateway.oauth.algorithms does not allow (${spec.algorithms.join(", ")})`;
  if (err instanceof errors.JWKSNoMatchingKey) return "is signed with a key the issuer does not publish (unknown kid)";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "has a signature that does not verify";
  if (err instanceof errors.JWKSMultipleMatchingKeys)
    return "names no key id (kid) and the issuer publishes several keys";
  return "is not a well-formed signed JWT";
}

/** A quoted-string of RFC 7230 for the challenge: no quote or backslash, printable ASCII only. */
const quoted = (s: string): string => s.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, "?");
