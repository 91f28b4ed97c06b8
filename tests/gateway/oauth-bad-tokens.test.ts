/**
 * Bad bearer tokens against the real `serve --http` in OAuth mode: each gets a coded refusal
 * (401 with an invalid_token challenge, or 403), no session and nothing served, and the server
 * answers a good token afterwards. The forgeries use the issuer's real key where the point is a
 * bad claim, so the claim check (not the signature) is what refuses them. None of them makes the
 * gateway fetch the issuer's keys again: at most once per 30 s cooldown.
 */
import { createPublicKey } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hmacWithPublicKey, mutations, noneToken, signWith, strangerToken } from "../fixtures/oidc/forge.js";
import { AUDIENCE, initialize, type OAuthWorld, startOAuthWorld } from "../fixtures/oidc/gateway.js";
import { cleanupTempDirs } from "../helpers.js";

let world: OAuthWorld;
let good: string;
let warmedAt = 0;
beforeAll(async () => {
  world = await startOAuthWorld();
  good = await world.token("alpha");
  // One good request first: the gateway discovers and fetches the keys once.
  expect((await initialize(world.serve, `Bearer ${good}`)).status).toBe(200);
  warmedAt = Date.now();
});
afterAll(async () => {
  await world?.stop();
  cleanupTempDirs();
});

/** Refused with a code, no session, nothing served; a 401 carries the invalid_token challenge. */
async function expectRefused(token: string, status: 401 | 403 = 401): Promise<string> {
  const r = await initialize(world.serve, `Bearer ${token}`);
  expect(r.status, `${r.status} ${JSON.stringify(r.body)}`).toBe(status);
  expect(r.body.error?.code).toMatch(/^PB_ERR_/);
  expect(r.headers.get("mcp-session-id")).toBeNull();
  expect(JSON.stringify(r.body)).not.toContain('"result"');
  if (status === 401) {
    const challenge = r.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]*", resource_metadata="[^"]+"$/);
  }
  return r.body.error?.message ?? "";
}

async function expectAlive(): Promise<void> {
  const c = await world.serve.connect(good);
  try {
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["gw__echo"]);
  } finally {
    await c.close();
  }
}

const claims = () => ({ iss: world.idp.issuer, aud: AUDIENCE, client_id: "alpha", sub: "alpha", scope: "mcp:alpha" });
const now = () => Math.floor(Date.now() / 1000);

describe("bad access tokens over serve --http", () => {
  it("refuses 1,000 seeded mutations of a good token (header, payload, signature)", async () => {
    const mutants = mutations(good, 1000, 0x5eed32);
    expect(new Set(mutants).size).toBe(1000);
    const codes = new Map<string, number>();
    for (let i = 0; i < mutants.length; i += 25) {
      const answers = await Promise.all(mutants.slice(i, i + 25).map((m) => initialize(world.serve, `Bearer ${m}`)));
      answers.forEach((r, j) => {
        const seen = `mutant ${i + j}: ${r.status} ${JSON.stringify(r.body)}`;
        expect(r.status, seen).toBe(401);
        expect(r.body.error?.code, seen).toBe("PB_ERR_GATEWAY_TOKEN_INVALID");
        expect(r.headers.get("mcp-session-id"), seen).toBeNull();
        expect(r.headers.get("www-authenticate"), seen).toMatch(/^Bearer error="invalid_token"/);
        codes.set(r.body.error?.message ?? "", (codes.get(r.body.error?.message ?? "") ?? 0) + 1);
      });
    }
    // The refusals name several different faults, never the token.
    expect(codes.size).toBeGreaterThan(2);
    for (const message of codes.keys()) expect(message).not.toContain(good.split(".")[2].slice(0, 16));
    await expectAlive();
  });

  it("refuses alg none and HS256 keyed with the RSA public key", async () => {
    const pem = createPublicKey({ key: world.idp.publicJwk as never, format: "jwk" })
      .export({ type: "spki", format: "pem" })
      .toString();
    expect(await expectRefused(noneToken(claims()))).toMatch(/algorithm|well-formed/);
    expect(await expectRefused(hmacWithPublicKey(pem, claims(), "idp-1"))).toMatch(/algorithm/);
    expect(await expectRefused(hmacWithPublicKey(JSON.stringify(world.idp.publicJwk), claims(), "idp-1"))).toMatch(
      /algorithm/,
    );
    await expectAlive();
  });

  it("refuses expired, not yet valid, wrong issuer and wrong audience, each saying which", async () => {
    const key = world.idp.privateJwk;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ iat: now() - 3600, exp: now() - 600 }, /expired/],
      [{ nbf: now() + 600 }, /not yet valid/],
      [{ iss: "https://evil.test" }, /wrong issuer/],
      [{ aud: "https://other.test/mcp" }, /wrong audience/],
      [{ aud: [world.idp.issuer] }, /wrong audience/],
    ];
    for (const [bad, why] of cases)
      expect(await expectRefused(await signWith(key, { ...claims(), ...bad }))).toMatch(why);
    await expectAlive();
  });

  it("refuses an unknown kid from the cached keys, and a token over 8 KiB before any work", async () => {
    for (let i = 0; i < 20; i++)
      expect(await expectRefused(await strangerToken(claims(), `rotated-${i}`))).toContain("unknown kid");
    // A stranger's key under the issuer's own kid: the signature does not verify.
    expect(await expectRefused(await strangerToken(claims(), "idp-1"))).toContain("signature");
    const huge = await signWith(world.idp.privateJwk, { ...claims(), pad: "x".repeat(9 * 1024) });
    expect(huge.length).toBeGreaterThan(8 * 1024);
    expect(await expectRefused(huge)).toContain("over 8 KiB");
    await expectAlive();
  });

  it("fetched the issuer's keys no more than once per cooldown through all of it", async () => {
    const stats = await world.idp.stats();
    const cooldowns = Math.floor((Date.now() - warmedAt) / 30_000);
    expect(stats.jwks).toBeGreaterThanOrEqual(1);
    expect(stats.jwks).toBeLessThanOrEqual(1 + cooldowns);
    expect(stats.metadata).toBeLessThanOrEqual(2);
  });

  it("refuses a valid token of a client the gateway does not know with 403", async () => {
    await expectRefused(await world.token("nobody"), 403);
    await expectAlive();
  });
});
