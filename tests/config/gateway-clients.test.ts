import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { caught } from "./fixtures.js";

const base = { memoryStores: { notes: { plugin: "x" } }, mcpConnectors: { gh: { plugin: "mcp-remote" } } };
const TOKEN = "a-client-token-of-enough-length";

describe("gateway.clients", () => {
  it("hashes a ${VAR} token and keeps no copy of it", async () => {
    const cfg = await loadConfig({
      config: {
        ...base,
        gateway: {
          clients: {
            ci: { token: "${CI_TOKEN}", expose: { "mcpConnectors/gh": ["search_*"] }, limits: { callsPerMinute: 5 } },
          },
        },
      },
      cwd: "/",
      env: { CI_TOKEN: TOKEN },
    });
    const [ci] = cfg.gateway.clients;
    expect(ci).toMatchObject({
      id: "ci",
      pointer: "/gateway/clients/ci",
      tokenSha256: createHash("sha256").update(TOKEN).digest("hex"),
      expose: { "mcpConnectors/gh": ["search_*"] },
      limits: { callsPerMinute: 5, concurrent: null },
      metrics: false,
    });
    expect(JSON.stringify(cfg.gateway)).not.toContain(TOKEN);
    expect(cfg.gateway.oauth).toBeNull();
    expect(cfg.gateway.state).toBeNull();
  });

  it("refuses a token written into the file, naming its pointer and never echoing it", async () => {
    const err = await caught(() =>
      loadConfig({
        config: { ...base, gateway: { clients: { ci: { token: TOKEN, expose: {} } } } },
        cwd: "/",
        env: {},
      }),
    );
    expect(err.code).toBe("PB_ERR_CONFIG_INVALID");
    expect(err.message).toContain("/gateway/clients/ci/token");
    expect(err.message).toContain("patchbay client add");
  });

  it("refuses a client id with odd characters, with its JSON pointer", async () => {
    const err = await caught(() =>
      loadConfig({
        config: { ...base, gateway: { clients: { "bad id<x>": { tokenSha256: "0".repeat(64), expose: {} } } } },
        cwd: "/",
        env: {},
      }),
    );
    expect(err.code).toBe("PB_ERR_CONFIG_INVALID");
    expect(err.message).toContain("/gateway/clients/bad id<x>");
    expect(err.message).toMatch(/client id must be/);
  });

  it("refuses unknown instances, shared tokens and an id used by static and OAuth clients", async () => {
    const hash = "ab".repeat(32);
    const err = await caught(() =>
      loadConfig({
        config: {
          ...base,
          gateway: {
            clients: {
              a: { tokenSha256: hash, expose: { "memoryStores/nope": true } },
              b: { tokenSha256: hash, expose: {} },
            },
            oauth: {
              issuer: "http://127.0.0.1:1/",
              audience: "http://127.0.0.1:2/mcp",
              clients: { a: { match: { sub: "x" }, expose: {} } },
            },
          },
        },
        cwd: "/",
        env: {},
      }),
    );
    expect(err.message).toContain("/gateway/clients/a/expose/memoryStores~1nope");
    expect(err.message).toContain('/gateway/clients/b: has the same token as client "a"');
    expect(err.message).toContain("/gateway/oauth/clients/a");
  });

  it("needs exactly one of token and tokenSha256, and exactly one claim to match", async () => {
    const err = await caught(() =>
      loadConfig({
        config: {
          ...base,
          gateway: {
            clients: { a: { expose: {} } },
            oauth: {
              issuer: "http://127.0.0.1:1/",
              audience: "x",
              clients: { o: { match: { sub: "x", scope: "y" }, expose: {} } },
            },
          },
        },
        cwd: "/",
        env: {},
      }),
    );
    expect(err.message).toContain('exactly one of "token"');
    expect(err.message).toContain("exactly one of sub, client_id, azp, scope");
  });

  it("resolves OAuth clients by claim and the shared state", async () => {
    const cfg = await loadConfig({
      config: {
        ...base,
        gateway: {
          oauth: {
            issuer: "http://127.0.0.1:9/",
            audience: "http://127.0.0.1:8/mcp",
            clients: { bot: { match: { client_id: "bot" }, expose: { "memoryStores/notes": true }, metrics: true } },
          },
          state: { postgres: "${PG}" },
        },
      },
      cwd: "/",
      env: { PG: "postgres://u@127.0.0.1/db" },
    });
    expect(cfg.gateway.oauth).toMatchObject({
      issuer: "http://127.0.0.1:9/",
      jwksUri: null,
      algorithms: ["RS256", "PS256", "ES256", "EdDSA"],
      clients: [{ id: "bot", match: { claim: "client_id", value: "bot" }, metrics: true }],
    });
    expect(cfg.gateway.state).toEqual({ postgres: "postgres://u@127.0.0.1/db" });
  });
});

describe("gateway.clients reserved ids", () => {
  it("keeps the id operator for the server's own token", async () => {
    const err = await caught(() =>
      loadConfig({
        config: { ...base, gateway: { clients: { operator: { tokenSha256: "c".repeat(64), expose: {} } } } },
        cwd: "/",
        env: {},
      }),
    );
    expect(err.message).toContain('/gateway/clients/operator: client id "operator" is reserved');
  });
});
