/**
 * An MCP client that signs in by itself: the MCP SDK's client, given only a client id and secret,
 * meets the gateway's 401, follows its resource_metadata to the protected-resource metadata, from
 * there to the authorization server (the real oidc-provider), gets a token for the gateway's URL
 * (RFC 8707) and is then served its client's tools. The whole MCP authorization dance, with
 * nothing in the client but credentials.
 */
import { createServer } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { SECRETS, startOAuthWorld } from "../fixtures/oidc/gateway.js";
import { cleanupTempDirs } from "../helpers.js";

afterAll(cleanupTempDirs);

describe("an MCP SDK client signing in through the gateway's challenge", () => {
  it("discovers the authorization server, gets a token for the gateway, and sees its own tools", async () => {
    const world = await startOAuthWorld([], await freePort());
    try {
      expect(world.serve.url).toBe(world.audience);
      const provider = new ClientCredentialsProvider({
        clientId: "alpha",
        clientSecret: SECRETS.alpha,
        expectedIssuer: world.idp.issuer,
      });
      const client = new Client({ name: "oauth-sdk-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(world.serve.url), { authProvider: provider }));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["gw__echo"]);
        const echoed = await client.callTool({ name: "gw__echo", arguments: { text: "signed in" } });
        expect(echoed.isError).not.toBe(true);
      } finally {
        await client.close();
      }
      expect(provider.tokens()?.access_token).toBeTruthy();
      expect((await world.idp.stats()).token).toBe(1);
    } finally {
      await world.stop();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
