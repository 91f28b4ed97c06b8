/**
 * The OAuth verifier against the real oidc-provider: tokens map to the first matching client,
 * discovery and keys are fetched once and kept, an unknown kid costs at most one JWKS refetch per
 * cooldown, an unreachable issuer is a coded 503 retried later (not per request), and every refusal
 * says what was wrong without repeating the token.
 */
import { createServer } from "node:net";
import { createPublicKey } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { oauthSchema } from "../../src/config/gateway-clients-schema.js";
import type { ResolvedOAuth, ResolvedOAuthClient } from "../../src/config/types.js";
import { matchClient, scopesOf } from "../../src/gateway/clients/oauth-claims.js";
import { metadataUrls, RETRY_AFTER_MS } from "../../src/gateway/clients/oauth-discovery.js";
import { createOAuthVerifier, type OAuthRefusal } from "../../src/gateway/clients/oauth.js";
import { hmacWithPublicKey, mutations, noneToken, signWith, strangerToken } from "../fixtures/oidc/forge.js";
import { type Idp, startIdp } from "../fixtures/oidc/idp.js";
import { z } from "zod";

const AUD = "https://gw.test/mcp";
const SECRET = "alpha-secret-0123456789abcdef";

const client = (id: string, claim: ResolvedOAuthClient["match"]["claim"], value: string): ResolvedOAuthClient => ({
  id,
  pointer: `/gateway/oauth/clients/${id}`,
  expose: {},
  limits: { callsPerMinute: null, concurrent: null },
  metrics: false,
  match: { claim, value },
});
const CLIENTS = [client("by-scope", "scope", "mcp:alpha"), client("by-id", "client_id", "alpha")];

let idp: Idp;
const spec = (extra: Partial<ResolvedOAuth> = {}): ResolvedOAuth => ({
  issuer: idp.issuer,
  audience: AUD,
  jwksUri: null,
  algorithms: ["RS256", "PS256", "ES256", "EdDSA"],
  clients: CLIENTS,
  ...extra,
});

beforeAll(async () => {
  idp = await startIdp({
    resources: [AUD],
    scopes: ["mcp:alpha"],
    clients: [
      {
        client_id: "alpha",
        client_secret: SECRET,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        scope: "mcp:alpha",
      },
    ],
  });
});
afterAll(() => idp?.stop());

const refused = (v: unknown): OAuthRefusal => {
  expect(v).toHaveProperty("status");
  return v as OAuthRefusal;
};

describe("OAuth verifier", () => {
  it("accepts the provider's token, maps it to the first matching client, and fetches once", async () => {
    const v = createOAuthVerifier(spec());
    const token = await idp.clientCredentials("alpha", SECRET, { resource: AUD, scope: "mcp:alpha" });
    const caller = await v.verify(token, CLIENTS);
    expect(caller).toMatchObject({ client: { id: "by-scope" }, subject: "alpha", scopes: ["mcp:alpha"] });
    expect(await v.verify(token, [CLIENTS[1]])).toMatchObject({ client: { id: "by-id" } });
    const none = refused(await v.verify(token, [client("x", "sub", "someone-else")]));
    expect(none).toMatchObject({ status: 403, code: "PB_ERR_CLIENT_UNKNOWN" });
    // oidc-provider has no RFC 8414 document: that answer is a 404, then OpenID discovery.
    expect(v.fetches).toEqual({ metadata: 2, jwks: 1 });
    for (let i = 0; i < 20; i++) await v.verify(token, CLIENTS);
    expect(v.fetches).toEqual({ metadata: 2, jwks: 1 });
  });

  it("refuses 5,000 seeded mutations of a good token, and accepts only what decodes to the same token", async () => {
    const v = createOAuthVerifier(spec({ jwksUri: `${idp.issuer}/jwks` }));
    const good = await signWith(idp.privateJwk, { iss: idp.issuer, aud: AUD, client_id: "alpha" });
    for (const [i, m] of mutations(good, 5000, 20261205).entries())
      expect(await v.verify(m, CLIENTS), `mutant ${i}`).toHaveProperty("status", 401);
    // Why the mutator skips some: the last character of an RS256 signature (256 bytes in 342
    // characters) has 4 unused bits, and base64 decoding ignores them: the same signature.
    const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const [h, p, s] = good.split(".");
    const last = B64URL[B64URL.indexOf(s.slice(-1)) ^ 1];
    const same = `${h}.${p}.${s.slice(0, -1)}${last}`;
    expect(same).not.toBe(good);
    expect(await v.verify(same, CLIENTS)).toHaveProperty("client");
    expect(await v.verify(`${h}.${p}.${s.replace(/-/g, "+").replace(/_/g, "/")}`, CLIENTS)).toHaveProperty("status");
    expect(v.fetches.jwks).toBe(1);
  });

  it("accepts the issuer's ES256 key too, unless gateway.oauth.algorithms leaves ES256 out", async () => {
    const claims = { iss: idp.issuer, aud: AUD, client_id: "alpha" };
    const token = await signWith(idp.ecPrivateJwk, claims, { alg: "ES256" });
    expect(await createOAuthVerifier(spec()).verify(token, CLIENTS)).toHaveProperty("client");
    const rsaOnly = createOAuthVerifier(spec({ algorithms: ["RS256"] }));
    expect(refused(await rsaOnly.verify(token, CLIENTS)).message).toContain("algorithm");
    expect(rsaOnly.fetches).toEqual({ metadata: 0, jwks: 0 });
  });

  it("uses gateway.oauth.jwksUri as given, with no discovery", async () => {
    const v = createOAuthVerifier(spec({ jwksUri: `${idp.issuer}/jwks` }));
    const token = await signWith(idp.privateJwk, { iss: idp.issuer, aud: AUD, client_id: "alpha" });
    expect(await v.verify(token, CLIENTS)).toMatchObject({ client: { id: "by-id" } });
    expect(v.fetches).toEqual({ metadata: 0, jwks: 1 });
  });

  it("refetches the keys once for an unknown kid, then refuses from the cache until the cooldown ends", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const v = createOAuthVerifier(spec());
      const before = (await idp.stats()).jwks;
      const good = await signWith(idp.privateJwk, { iss: idp.issuer, aud: AUD, client_id: "alpha" });
      expect(await v.verify(good, CLIENTS)).toHaveProperty("client");
      expect(v.fetches.jwks).toBe(1);
      const strangers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => strangerToken({ iss: idp.issuer, aud: AUD }, `new-key-${i}`)),
      );
      // Within the cooldown of the first fetch: refused from the cache, no fetch at all.
      for (const r of await Promise.all(strangers.map((t) => v.verify(t, CLIENTS))))
        expect(refused(r).message).toContain("unknown kid");
      expect(v.fetches.jwks).toBe(1);
      // After it: thirty tokens at once with unknown kids cause exactly one refetch ...
      vi.setSystemTime(Date.now() + 31_000);
      for (const r of await Promise.all(strangers.map((t) => v.verify(t, CLIENTS))))
        expect(refused(r)).toMatchObject({ status: 401, code: "PB_ERR_GATEWAY_TOKEN_INVALID" });
      expect(v.fetches.jwks).toBe(2);
      // ... and the next ones are refused from the refreshed cache.
      for (const t of strangers) expect(refused(await v.verify(t, CLIENTS)).status).toBe(401);
      expect(v.fetches.jwks).toBe(2);
      expect((await idp.stats()).jwks - before).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps a verified token no longer than it is valid", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const v = createOAuthVerifier(spec({ jwksUri: `${idp.issuer}/jwks` }));
      // Expired 30 s ago: accepted within the skew for 30 s more, less than a cache entry's minute.
      const exp = Math.floor(Date.now() / 1000) - 30;
      const token = await signWith(idp.privateJwk, { iss: idp.issuer, aud: AUD, client_id: "alpha", exp });
      expect(await v.verify(token, CLIENTS)).toHaveProperty("client");
      vi.setSystemTime(Date.now() + 20_000);
      expect(await v.verify(token, CLIENTS)).toHaveProperty("client");
      // Past exp and the minute of skew: refused, though it was accepted (and kept) before.
      vi.setSystemTime(Date.now() + 15_000);
      expect(refused(await v.verify(token, CLIENTS)).message).toContain("has expired");
    } finally {
      vi.useRealTimers();
    }
  });

  it("refuses alg none and HS256 keyed with the public key before fetching anything", async () => {
    const v = createOAuthVerifier(spec());
    const pem = createPublicKey({ key: idp.publicJwk as never, format: "jwk" })
      .export({ type: "spki", format: "pem" })
      .toString();
    const claims = { iss: idp.issuer, aud: AUD, client_id: "alpha" };
    for (const token of [
      noneToken(claims),
      hmacWithPublicKey(pem, claims, "idp-1"),
      hmacWithPublicKey(JSON.stringify(idp.publicJwk), claims, "idp-1"),
    ]) {
      const r = refused(await v.verify(token, CLIENTS));
      expect(r).toMatchObject({ status: 401, code: "PB_ERR_GATEWAY_TOKEN_INVALID", error: "invalid_token" });
      expect(r.message).toMatch(/algorithm|well-formed/);
    }
    expect(v.fetches).toEqual({ metadata: 0, jwks: 0 });
  });

  it("names what was wrong (expiry, nbf, issuer, audience, signature) and never repeats the token", async () => {
    const v = createOAuthVerifier(spec());
    const t = Math.floor(Date.now() / 1000);
    const base = { iss: idp.issuer, aud: AUD, client_id: "alpha" };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ exp: t - 120 }, /has expired/],
      [{ nbf: t + 600 }, /not yet valid/],
      [{ iss: "https://evil.test" }, /wrong issuer/],
      [{ aud: "https://other.test/mcp" }, /wrong audience/],
      [{ exp: undefined }, /expiry|exp/],
    ];
    for (const [claims, why] of cases) {
      const token = await signWith(idp.privateJwk, { ...base, ...claims });
      const r = refused(await v.verify(token, CLIENTS));
      expect(r.status).toBe(401);
      expect(r.message).toMatch(why);
      for (const part of token.split(".")) expect(r.message).not.toContain(part);
      expect(r.message).not.toContain("evil.test");
    }
    // Within the 60 s skew: still accepted.
    const skewed = await signWith(idp.privateJwk, { ...base, exp: t - 30, nbf: t + 30 });
    expect(await v.verify(skewed, CLIENTS)).toHaveProperty("client");
    const good = await signWith(idp.privateJwk, base);
    const [h, p, s] = good.split(".");
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...base, client_id: "root", exp: t + 300 })).toString("base64url")}.${s}`;
    expect(refused(await v.verify(tampered, CLIENTS)).message).toContain("signature");
    expect(p).not.toBe(tampered.split(".")[1]);
  });

  it("answers an unreachable issuer with a coded 503, and asks again only after the retry delay", async () => {
    const port = await closedPort();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const v = createOAuthVerifier(spec({ issuer: `http://127.0.0.1:${port}` }));
      const token = await strangerToken({ iss: `http://127.0.0.1:${port}`, aud: AUD });
      const first = refused(await v.verify(token, CLIENTS));
      expect(first).toMatchObject({ status: 503, code: "PB_ERR_OAUTH_DISCOVERY" });
      expect(first.message).toContain("ECONNREFUSED");
      expect(v.fetches.metadata).toBe(2);
      for (let i = 0; i < 10; i++) expect(refused(await v.verify(token, CLIENTS)).status).toBe(503);
      expect(v.fetches.metadata).toBe(2);
      vi.setSystemTime(Date.now() + RETRY_AFTER_MS + 1);
      expect(refused(await v.verify(token, CLIENTS)).status).toBe(503);
      expect(v.fetches.metadata).toBe(4);
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers keys that cannot be read (refused connection, 404) with a coded 503, fetched once", async () => {
    const port = await closedPort();
    for (const jwksUri of [`http://127.0.0.1:${port}/jwks`, `${idp.issuer}/no-such-jwks`]) {
      const v = createOAuthVerifier(spec({ jwksUri }));
      const token = await signWith(idp.privateJwk, { iss: idp.issuer, aud: AUD, client_id: "alpha" });
      const first = refused(await v.verify(token, CLIENTS));
      expect(first).toMatchObject({ status: 503, code: "PB_ERR_OAUTH_DISCOVERY", retryAfter: RETRY_AFTER_MS / 1000 });
      expect(first.message).toMatch(/JWKS.*(ECONNREFUSED|200 OK)/);
      for (let i = 0; i < 5; i++) expect(refused(await v.verify(token, CLIENTS)).status).toBe(503);
      expect(v.fetches).toEqual({ metadata: 0, jwks: 1 });
    }
  });

  it("builds the challenge and the RFC 9728 metadata", () => {
    const v = createOAuthVerifier(spec());
    const url = "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp";
    expect(v.challenge(url)).toBe(`Bearer resource_metadata="${url}"`);
    const refusal: OAuthRefusal = {
      status: 401,
      code: "PB_ERR_GATEWAY_TOKEN_INVALID",
      message: 'bad "quoted" \\ text',
      error: "invalid_token",
    };
    expect(v.challenge(url, refusal)).toBe(
      `Bearer error="invalid_token", error_description="bad 'quoted' ' text", resource_metadata="${url}"`,
    );
    expect(v.resourceMetadata("http://127.0.0.1:1/mcp")).toEqual({
      resource: AUD,
      authorization_servers: [idp.issuer],
      bearer_methods_supported: ["header"],
      scopes_supported: ["mcp:alpha"],
      resource_name: "Patchbay gateway",
    });
  });
});

describe("OAuth claims and config", () => {
  it("reads scope and scp (string or array) and matches in order", () => {
    expect(scopesOf({ scope: "a b", scp: ["c", "a"] })).toEqual(["a", "b", "c"]);
    expect(scopesOf({ scp: "x y" })).toEqual(["x", "y"]);
    expect(matchClient({ azp: "app", scp: ["mcp:alpha"] }, CLIENTS)?.id).toBe("by-scope");
    expect(matchClient({ sub: "u" }, [client("s", "sub", "u"), client("t", "sub", "u")])?.id).toBe("s");
    expect(matchClient({ azp: "app" }, [client("a", "azp", "app")])?.id).toBe("a");
    expect(matchClient({ client_id: ["alpha"] }, CLIENTS)).toBeNull();
  });

  it("finds metadata at RFC 8414 and OpenID Connect locations", () => {
    expect(metadataUrls("https://id.test")).toEqual([
      "https://id.test/.well-known/oauth-authorization-server",
      "https://id.test/.well-known/openid-configuration",
    ]);
    expect(metadataUrls("https://id.test/tenant/")).toEqual([
      "https://id.test/.well-known/oauth-authorization-server/tenant",
      "https://id.test/.well-known/openid-configuration/tenant",
      "https://id.test/tenant/.well-known/openid-configuration",
    ]);
  });

  it("refuses none and HMAC algorithms in connectors.json", () => {
    const schema = oauthSchema(z.string());
    const base = { issuer: "https://id.test", audience: AUD };
    expect(schema.safeParse({ ...base }).success).toBe(true);
    for (const alg of ["none", "HS256", "HS512"])
      expect(schema.safeParse({ ...base, algorithms: [alg] }).success).toBe(false);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
