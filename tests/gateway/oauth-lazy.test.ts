/**
 * A gateway without gateway.oauth never loads the OAuth verifier or jose, and one without
 * gateway.state never loads pg: `serve --http` runs with a module hook that throws if any is resolved, serves the operator, and refuses a JWT-shaped
 * bearer with its plain 403 (no challenge: there is no sign-in to offer). With gateway.oauth the
 * same hook stops the start, which shows the hook would catch the load.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, cleanupTempDirs, refuseModules } from "../helpers.js";
import { childEnv, gatewayConfig } from "./_gateway.js";

afterAll(cleanupTempDirs);

const OAUTH_MODULES =
  /\/cli-bundle\/oauth-[\w-]+\.js$|\/dist\/gateway\/clients\/oauth[\w-]*\.js$|\/node_modules\/jose\/|\/node_modules\/pg\//;

/** `serve --http` under the hook: its URL once it listens, or its stderr if it exits first. */
function serveRefusingOAuth(file: string): Promise<{ url?: string; stderr: string; stop(): void }> {
  const proc = spawn(
    process.execPath,
    [...refuseModules(OAUTH_MODULES), BIN, "serve", "--http", "--port", "0", "--config", file],
    { env: childEnv({ PATCHBAY_TOKEN: "operator-token-0123456789" }), cwd: path.dirname(file) },
  );
  let stderr = "";
  const stop = () => proc.kill("SIGTERM");
  return new Promise((resolve) => {
    proc.stderr.on("data", (d) => {
      stderr += d;
      const url = /Streamable HTTP at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1];
      if (url) resolve({ url, stderr, stop });
    });
    proc.on("exit", () => resolve({ stderr, stop }));
  });
}

describe("OAuth stays off the path of a gateway without it", () => {
  it("serves without loading the verifier, jose or pg", async () => {
    const { file } = gatewayConfig();
    const s = await serveRefusingOAuth(file);
    try {
      expect(s.url, s.stderr).toBeDefined();
      const post = (authorization: string) =>
        fetch(s.url!, {
          method: "POST",
          headers: { authorization, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "lazy", version: "1" } },
          }),
        });
      expect((await post("Bearer operator-token-0123456789")).status).toBe(200);
      const jwtShaped = await post("Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln");
      expect(jwtShaped.status).toBe(403);
      expect(jwtShaped.headers.get("www-authenticate")).toBeNull();
      expect(((await jwtShaped.json()) as { error: { code: string } }).error.code).toBe("PB_ERR_GATEWAY_UNAUTHORIZED");
    } finally {
      s.stop();
    }
  });

  it("does load them when gateway.oauth is set (the hook is not blind)", async () => {
    const { file } = gatewayConfig({
      gateway: { oauth: { issuer: "http://127.0.0.1:9/", audience: "https://patchbay.test/mcp" } },
    });
    const s = await serveRefusingOAuth(file);
    s.stop();
    expect(s.url).toBeUndefined();
    expect(s.stderr).toMatch(/loaded .*(oauth|jose)/);
  });
});
