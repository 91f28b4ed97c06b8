/**
 * OAuth mode when things change or fail, over the real `serve --http`: an unreachable issuer is a
 * coded 503 with Retry-After and the server keeps serving everyone else; editing
 * gateway.oauth.clients takes effect on the next request without a restart, and without
 * refetching the issuer's keys (the verifier, and its cache, outlive a clients-only reload).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { strangerToken } from "../fixtures/oidc/forge.js";
import { AUDIENCE, initialize, OPERATOR, startOAuthWorld } from "../fixtures/oidc/gateway.js";
import { cleanupTempDirs } from "../helpers.js";
import { gatewayConfig, type HttpServe, startHttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

async function toolNames(serve: HttpServe, token: string): Promise<string[]> {
  const c = await serve.connect(token);
  try {
    return (await c.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await c.close();
  }
}

/** Resolves once the server's stderr (after `from` characters) has a line matching `pattern`. */
function nextLine(serve: HttpServe, pattern: RegExp, from = serve.stderr().length): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (pattern.test(serve.stderr().slice(from))) {
        serve.proc.stderr.off("data", check);
        resolve();
      }
    };
    serve.proc.stderr.on("data", check);
    check();
  });
}

describe("OAuth mode over serve --http, changing and failing", () => {
  it("answers tokens with a coded 503 while the issuer is unreachable, and keeps serving", async () => {
    const port = await closedPort();
    const issuer = `http://127.0.0.1:${port}`;
    const { file } = gatewayConfig({
      gateway: {
        oauth: {
          issuer,
          audience: AUDIENCE,
          clients: { alpha: { match: { client_id: "alpha" }, expose: { "mcpConnectors/gw": ["echo"] } } },
        },
      },
    });
    const serve = await startHttpServe(file, { PATCHBAY_TOKEN: OPERATOR });
    try {
      const token = await strangerToken({ iss: issuer, aud: AUDIENCE, client_id: "alpha" });
      for (let i = 0; i < 3; i++) {
        const r = await initialize(serve, `Bearer ${token}`);
        expect(r.status).toBe(503);
        expect(r.body.error?.code).toBe("PB_ERR_OAUTH_DISCOVERY");
        expect(r.body.error?.message).toContain(issuer);
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(r.headers.get("mcp-session-id")).toBeNull();
      }
      // Where to sign in is still said, and the operator is still served.
      const meta = await fetch(`${serve.base}/.well-known/oauth-protected-resource/mcp`);
      expect(((await meta.json()) as { authorization_servers: string[] }).authorization_servers).toEqual([issuer]);
      expect(await toolNames(serve, OPERATOR)).toContain("gw__echo");
      expect(serve.proc.exitCode).toBeNull();
    } finally {
      await serve.stop();
    }
  });

  it("applies an edit of gateway.oauth.clients on the next request, keeping the cached keys", async () => {
    const world = await startOAuthWorld(["--watch"]);
    try {
      await nextLine(world.serve, /watching connectors\.json/, 0);
      const token = await world.token("alpha");
      expect(await toolNames(world.serve, token)).toEqual(["gw__echo"]);
      const config = JSON.parse(readFileSync(world.file, "utf8"));
      config.gateway.oauth.clients.alpha.expose = { "mcpConnectors/gw": ["fail", "whoami"] };
      const reloaded = nextLine(world.serve, /reload done/);
      writeFileSync(world.file, JSON.stringify(config, null, 2));
      await reloaded;
      expect(await toolNames(world.serve, token)).toEqual(["gw__fail", "gw__whoami"]);
      // The client removed: the same valid token now matches no client.
      delete config.gateway.oauth.clients.alpha;
      const removed = nextLine(world.serve, /reload done/);
      writeFileSync(world.file, JSON.stringify(config, null, 2));
      await removed;
      const r = await initialize(world.serve, `Bearer ${token}`);
      expect(r.status).toBe(403);
      expect(r.body.error?.code).toBe("PB_ERR_CLIENT_UNKNOWN");
      expect((await world.idp.stats()).jwks).toBe(1);
    } finally {
      await world.stop();
    }
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
