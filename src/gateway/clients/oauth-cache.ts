/**
 * Access tokens already verified, so a client's every request does not pay for a signature check
 * again (an RS256 verify is ~50-100 µs, a tenth of a tools/call through the gateway). An entry
 * lives until the token expires (with the same skew the check allows) but never more than
 * MAX_AGE_MS: a key the issuer withdraws stops vouching for its tokens within a minute of the key
 * set being refetched. Only accepted tokens are kept; a refusal is always checked afresh.
 */
import type { JWTPayload } from "jose";

const MAX_ENTRIES = 1024;
const MAX_AGE_MS = 60_000;

export class VerifiedTokens {
  private readonly entries = new Map<string, { claims: JWTPayload; until: number }>();

  constructor(private readonly skewSeconds: number) {}

  get(token: string): JWTPayload | null {
    const entry = this.entries.get(token);
    if (!entry) return null;
    if (Date.now() >= entry.until) {
      this.entries.delete(token);
      return null;
    }
    return entry.claims;
  }

  set(token: string, claims: JWTPayload): void {
    const expires = typeof claims.exp === "number" ? (claims.exp + this.skewSeconds) * 1000 : 0;
    const until = Math.min(expires, Date.now() + MAX_AGE_MS);
    if (until <= Date.now()) return;
    // Oldest first out: Map keeps insertion order.
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(token, { claims, until });
  }
}
