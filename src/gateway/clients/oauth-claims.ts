/**
 * Which gateway client a validated access token is: the first of gateway.oauth.clients (in the
 * order connectors.json lists them) whose match the token's claims fit. Pure, so the registry can
 * match against the clients in force after a hot reload without a new verifier.
 */
import type { JWTPayload } from "jose";
import type { ResolvedOAuthClient } from "../../config/types.js";

/**
 * The scopes a token carries. `scope` is RFC 9068's space-separated string; some servers send
 * `scp` instead (Entra ID as a string, Okta as an array), so both are read.
 */
export function scopesOf(claims: JWTPayload): string[] {
  const scopes = new Set<string>();
  for (const value of [claims.scope, claims.scp]) {
    const parts = typeof value === "string" ? value.split(" ") : Array.isArray(value) ? value : [];
    for (const s of parts) if (typeof s === "string" && s !== "") scopes.add(s);
  }
  return [...scopes];
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** The first client whose match fits, or null. */
export function matchClient(claims: JWTPayload, clients: readonly ResolvedOAuthClient[]): ResolvedOAuthClient | null {
  let scopes: string[] | null = null;
  for (const client of clients) {
    const { claim, value } = client.match;
    if (claim === "scope") {
      scopes ??= scopesOf(claims);
      if (scopes.includes(value)) return client;
    } else if (text(claims[claim]) === value) return client;
  }
  return null;
}

/**
 * Who holds the token, for binding a session to it: two users mapped to one client keep their
 * sessions apart. A client-credentials token has no user; its client stands in.
 */
export function subjectOf(claims: JWTPayload): string | null {
  return text(claims.sub) ?? text(claims.client_id) ?? text(claims.azp);
}
