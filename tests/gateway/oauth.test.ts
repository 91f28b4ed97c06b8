/**
 * OAuth resource-server mode over the real `serve --http`, with real tokens from oidc-provider:
 * a client-credentials client and a user signed in by authorization code + PKCE, mapped to two
 * clients with disjoint policies, each seeing and calling only its own tools; the 401 challenge
 * and the RFC 9728 metadata an MCP client signs in from; a valid token matching no client refused.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AUDIENCE,
  initialize,
  OPERATOR,
  OTHER_AUDIENCE,
  type OAuthWorld,
  startOAuthWorld,
} from "../fixtures/oidc/gateway.js";
import { cleanupTempDirs } from "../helpers.js";

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(async () => {
  await world?.stop();
  cleanupTempDirs();
});

async function toolNames(token: string): Promise<string[]> {
  const c = await world.serve.connect(token);
  try {
    return (await c.listTools()).tools.map((t) => t.name).sort();
  } finally {
    await c.close();
  }
}

describe("OAuth clients over serve --http", () => {
  it("gives a client-credentials token exactly its policy's tools, and refuses the rest", async () => {
    const token = await world.token("alpha");
    expect(await toolNames(token)).toEqual(["gw__echo"]);
    const c = await world.serve.connect(token);
    try {
      const echoed = await c.callTool({ name: "gw__echo", arguments: { text: "hello" } });
      expect(echoed.isError).not.toBe(true);
      for (const name of ["gw__fail", "gw__whoami", "no_such_tool"]) {
        const err = await c.callTool({ name, arguments: {} }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(McpError);
        expect((err as McpError).message).toContain("PB_ERR_CLIENT_FORBIDDEN");
        expect((err as McpError).message).toContain('Client "alpha"');
        // Where the operator finds it: the OAuth client's own entry, not gateway.clients.
        expect((err as McpError).message).toContain("(connectors.json /gateway/oauth/clients/alpha/expose)");
        expect((err as McpError).message).not.toContain("beta");
      }
    } finally {
      await c.close();
    }
  });

  it("keeps two OAuth clients apart: a PKCE user token (by scope) sees only the memory store", async () => {
    const all = await toolNames(OPERATOR);
    const alpha = await toolNames(await world.token("alpha"));
    const beta = await toolNames(await world.userToken("carol"));
    expect(beta.length).toBeGreaterThan(0);
    expect(beta).toEqual(all.filter((n) => n.includes("primary__")));
    expect(alpha.filter((n) => beta.includes(n))).toEqual([]);
    const c = await world.serve.connect(await world.userToken("dave"));
    try {
      const err = await c.callTool({ name: "gw__echo", arguments: { text: "x" } }).then(
        () => null,
        (e: unknown) => e as McpError,
      );
      expect(err?.message).toContain('Client "beta"');
    } finally {
      await c.close();
    }
  });

  it("shows an OAuth client its own part of GET /status", async () => {
    const res = await fetch(`${world.serve.base}/status`, {
      headers: { authorization: `Bearer ${await world.token("alpha")}` },
    });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { client: { id: string }; instances: { id: string }[] };
    expect(doc.client.id).toBe("alpha");
    expect(doc.instances.map((i) => i.id)).toEqual(["mcpConnectors/gw"]);
    expect(JSON.stringify(doc)).not.toContain("beta");
  });

  it("answers a missing token with 401 and the challenge naming the resource metadata", async () => {
    const r = await initialize(world.serve);
    expect(r.status).toBe(401);
    expect(r.body.error?.code).toBe("PB_ERR_GATEWAY_TOKEN_INVALID");
    expect(r.body.error?.message).toContain("no token was sent");
    expect((r.body.error as { hint?: string }).hint).toContain("authorization server");
    const metadataUrl = `${world.serve.base}/.well-known/oauth-protected-resource/mcp`;
    expect(r.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(r.headers.get("mcp-session-id")).toBeNull();
  });

  it("serves RFC 9728 protected-resource metadata naming the issuer", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const res = await fetch(`${world.serve.base}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toMatchObject({
        resource: AUDIENCE,
        authorization_servers: [world.idp.issuer],
        bearer_methods_supported: ["header"],
        scopes_supported: ["mcp:beta"],
      });
    }
  });

  it("refuses a valid token that matches no client with a coded 403", async () => {
    const r = await initialize(world.serve, `Bearer ${await world.token("nobody")}`);
    expect(r.status).toBe(403);
    expect(r.body.error?.code).toBe("PB_ERR_CLIENT_UNKNOWN");
    // Not the CLI's "a client id from patchbay client list": this caller has a token, not an id.
    expect((r.body.error as { hint?: string }).hint).toMatch(
      /^Ask the gateway's operator for a client in gateway\.oauth\.clients/,
    );
    expect(r.headers.get("mcp-session-id")).toBeNull();
  });

  it("refuses the IdP's own token for another resource as the wrong audience", async () => {
    const token = await world.token("alpha", OTHER_AUDIENCE);
    const r = await initialize(world.serve, `Bearer ${token}`);
    expect(r.status).toBe(401);
    expect(r.body.error?.code).toBe("PB_ERR_GATEWAY_TOKEN_INVALID");
    expect(r.body.error?.message).toContain("wrong audience");
    expect(r.body.error?.message).not.toContain(token.split(".")[1]);
    const challenge = r.headers.get("www-authenticate") ?? "";
    expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]*wrong audience[^"]*", /);
    expect(challenge).toContain('resource_metadata="');
  });

  it("holds a stateless gateway to the same OAuth clients", async () => {
    const stateless = await startOAuthWorld(["--stateless"]);
    try {
      const c = await stateless.serve.connect(await stateless.token("alpha"));
      try {
        expect((await c.listTools()).tools.map((t) => t.name)).toEqual(["gw__echo"]);
        expect((await c.callTool({ name: "gw__echo", arguments: { text: "x" } })).isError).not.toBe(true);
      } finally {
        await c.close();
      }
      const r = await initialize(stateless.serve, `Bearer ${await stateless.token("nobody")}`);
      expect(r.status).toBe(403);
      expect((await initialize(stateless.serve)).status).toBe(401);
    } finally {
      await stateless.stop();
    }
  });

  it("still lets the operator token in, with everything", async () => {
    const all = await toolNames(OPERATOR);
    expect(all).toEqual(expect.arrayContaining(["gw__echo", "gw__fail"]));
  });
});
