/**
 * mcp-remote's authorization-code provider keeps tokens and a dynamic registration in a file of
 * mode 0600 (folder 0700), one per instance, and never logs a token. The flows themselves run
 * against the conformance suite's authorization servers (tests/mcp/conformance.test.ts).
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AuthCodeProvider } from "../../plugins/mcp-remote/src/oauth.js";
import { config } from "../../plugins/mcp-remote/src/config.js";
import { makeCtx } from "../plugins/_ctx.js";

const dir = mkdtempSync(join(tmpdir(), "pb-oauth-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("mcp-remote OAuth token store", () => {
  it("writes tokens mode 0600 in a 0700 folder, per instance, and reads them back", async () => {
    const store = join(dir, "oauth");
    const cfg = config.parse({
      url: "http://127.0.0.1:1/mcp",
      oauth: { flow: "authorization_code", token_store: store },
    });
    const t = makeCtx({ instance: "mcpConnectors/github" });
    const provider = new AuthCodeProvider(cfg.oauth!, t.ctx);
    await provider.start();
    try {
      expect(provider.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      provider.saveTokens({ access_token: "at-secret-value", token_type: "Bearer", refresh_token: "rt-secret-value" });
      provider.saveClientInformation({ client_id: "dyn-client" });
      const file = join(store, "mcpConnectors_github.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(store).mode & 0o777).toBe(0o700);
      expect(provider.tokens()?.access_token).toBe("at-secret-value");
      expect(provider.clientInformation()?.client_id).toBe("dyn-client");
      // A file someone loosened is tightened on the next write.
      chmodSync(file, 0o644);
      provider.saveTokens({ access_token: "at-2", token_type: "Bearer" });
      expect(statSync(file).mode & 0o777).toBe(0o600);
      await provider.redirectToAuthorization(new URL("https://auth.example/authorize?client_id=dyn-client"));
      expect(JSON.stringify(t.lines)).not.toMatch(/at-secret-value|rt-secret-value|at-2/);
    } finally {
      provider.close();
    }
  });

  it("refuses client_credentials without a client id or a credential", () => {
    expect(() => config.parse({ url: "http://x/mcp", oauth: { client_id: "a" } })).toThrow(
      /client_secret or private_key_pem/,
    );
    expect(() => config.parse({ url: "http://x/mcp", oauth: { client_secret: "s" } })).toThrow(/needs client_id/);
    expect(() => config.parse({ command: "node", oauth: { client_id: "a", client_secret: "s" } })).toThrow(
      /oauth applies to url only/,
    );
  });
});
