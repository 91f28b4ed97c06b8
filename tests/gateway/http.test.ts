/**
 * `patchbay serve --http` against the real bin: the bearer token and Host/Origin checks come
 * before anything crosses; the real SDK client over Streamable HTTP; bad input (malformed JSON,
 * a 10 MB body, a client that disconnects mid-call) gets an error while others keep being served.
 */
import { request, type IncomingHttpHeaders } from "node:http";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs } from "../helpers.js";
import { gatewayConfig, nextToolListChange, startHttpServe, toolText, type HttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

/** A raw request, so the test controls Host (fetch does not let it be set). */
function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? "POST", headers: opts.headers }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

const init = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const mcpHeaders = (token: string, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  authorization: `Bearer ${token}`,
  ...extra,
});

async function status(
  s: HttpServe,
): Promise<{ instances: { id: string; calls: number; errors: number; healthy: boolean }[] }> {
  const res = await fetch(`${s.base}/status`, { headers: { authorization: `Bearer ${s.token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

describe("serve --http", () => {
  it("refuses a missing or wrong token with 403 (no OAuth challenge) and a foreign Host or Origin with 403, before anything crosses", async () => {
    const { file } = gatewayConfig();
    const s = await startHttpServe(file);
    try {
      const none = await raw(s.url, { headers: { "content-type": "application/json" }, body: init });
      expect(none.status).toBe(403);
      // A WWW-Authenticate challenge would send MCP clients into OAuth, hiding the reason.
      expect(none.headers["www-authenticate"]).toBeUndefined();
      expect(JSON.parse(none.body).error).toMatchObject({
        code: "PB_ERR_GATEWAY_UNAUTHORIZED",
        message: expect.stringContaining("no token was sent"),
      });
      const wrong = await raw(s.url, { headers: mcpHeaders("wrong-token"), body: init });
      expect(wrong.status).toBe(403);
      expect(wrong.headers["www-authenticate"]).toBeUndefined();
      expect(JSON.parse(wrong.body).error.message).toContain("is not this server's token");
      expect(wrong.body).not.toContain("wrong-token");
      expect(wrong.body).not.toContain(s.token);
      expect((await raw(`${s.base}/status`, { method: "GET", headers: { authorization: "Bearer nope" } })).status).toBe(
        403,
      );
      const foreign = await raw(s.url, { headers: { ...mcpHeaders(s.token), host: "evil.example.com" }, body: init });
      expect(foreign.status).toBe(403);
      expect(JSON.parse(foreign.body).error.code).toBe("PB_ERR_GATEWAY_HOST_DENIED");
      expect(
        (await raw(s.url, { headers: { ...mcpHeaders(s.token), origin: "http://evil.example.com" }, body: init }))
          .status,
      ).toBe(403);
      const client = await s.connect("wrong").catch((e: Error) => e);
      expect(client).toBeInstanceOf(Error);
      expect((await status(s)).instances.every((i) => i.calls === 0)).toBe(true);
    } finally {
      await s.stop();
    }
  });

  it("serves the SDK client: allowlisted tools, calls, error results, timeouts; GET /status counts them", async () => {
    const { file } = gatewayConfig({ defaults: { timeout_ms: 500, health_interval_ms: 60_000 } });
    const s = await startHttpServe(file);
    try {
      const client = await s.connect();
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        "gw__echo",
        "gw__fail",
        "gw__slow",
        "gw__whoami",
        "memory__primary__query",
      ]);
      expect(toolText(await client.callTool({ name: "gw__echo", arguments: { text: "over http" } }))).toBe("over http");
      expect(await client.callTool({ name: "gw__fail", arguments: {} })).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "quota exceeded" }],
      });
      expect(toolText(await client.callTool({ name: "gw__slow", arguments: { ms: 60_000 } }))).toMatch(
        /^\[PB_ERR_CALL_TIMEOUT\]/,
      );
      const gw = (await status(s)).instances.find((i) => i.id === "mcpConnectors/gw")!;
      expect(gw).toMatchObject({ calls: 3, errors: 2, healthy: true });
      await client.close();
    } finally {
      await s.stop();
    }
  });

  it("answers malformed JSON, a 10 MB body, 20 KB of headers and an unknown session with 4xx; a client that disconnects mid-call leaves others unaffected", async () => {
    const { file } = gatewayConfig({ defaults: { timeout_ms: 5_000, health_interval_ms: 60_000 } });
    const s = await startHttpServe(file);
    try {
      const other = await s.connect();
      const malformed = await raw(s.url, { headers: mcpHeaders(s.token), body: "{not json" });
      expect(malformed.status).toBe(400);
      expect(JSON.parse(malformed.body).error.code).toBe(-32700);
      const big = await raw(s.url, { headers: mcpHeaders(s.token), body: Buffer.alloc(10 * 1024 * 1024, 0x20) });
      expect(big.status).toBe(413);
      expect(JSON.parse(big.body).error).toMatchObject({
        code: -32000,
        data: { code: "PB_ERR_GATEWAY_REQUEST_TOO_LARGE" },
      });
      const filler = { "x-filler": "a".repeat(20_000) };
      const bigHeaders = await raw(s.url, { headers: mcpHeaders(s.token, filler), body: init });
      expect(bigHeaders.status).toBe(431);
      expect(JSON.parse(bigHeaders.body).error).toMatchObject({
        code: "PB_ERR_GATEWAY_REQUEST_TOO_LARGE",
        message: "Refused: the request's headers are over 16 KiB.",
      });
      expect(
        (await raw(s.url, { headers: mcpHeaders(s.token, { "mcp-session-id": "no-such-session" }), body: init }))
          .status,
      ).toBe(404);

      const quitter = await s.connect();
      const abort = new AbortController();
      const pending = quitter
        .callTool({ name: "gw__slow", arguments: { ms: 300 } }, undefined, { signal: abort.signal })
        .catch((e: Error) => e);
      abort.abort();
      expect(await pending).toBeInstanceOf(Error);
      await quitter.close();
      expect(toolText(await other.callTool({ name: "gw__echo", arguments: { text: "unaffected" } }))).toBe(
        "unaffected",
      );
      await other.close();
    } finally {
      await s.stop();
    }
  });

  it("sends list_changed over the session's stream when an instance turns unhealthy and back", async () => {
    const setup = gatewayConfig();
    const s = await startHttpServe(setup.file);
    try {
      const client = await s.connect();
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("gw__echo");
      // A list_changed from the boot may still be on its way (the port opens before the boot):
      // each notification is a cue to list again, until the list shows the change.
      const listsUntil = async (has: boolean) => {
        for (;;) {
          const changed = nextToolListChange(client);
          if ((await client.listTools()).tools.some((t) => t.name === "gw__echo") === has) return;
          await changed;
        }
      };
      setup.setHealthy(false);
      await listsUntil(false);
      setup.setHealthy(true);
      await listsUntil(true);
      await client.close();
    } finally {
      await s.stop();
    }
  });

  it("creates a token in .patchbay/token (mode 0600) when PATCHBAY_TOKEN is unset, and prints its path", async () => {
    const { file, dir } = gatewayConfig();
    const s = await startHttpServe(file, {});
    try {
      const tokenFile = path.join(dir, ".patchbay", "token");
      expect(s.stderr()).toContain(tokenFile);
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      expect(statSync(path.join(dir, ".patchbay")).mode & 0o777).toBe(0o700);
      const client = await s.connect(readFileSync(tokenFile, "utf8").trim());
      expect(toolText(await client.callTool({ name: "gw__echo", arguments: { text: "t" } }))).toBe("t");
      await client.close();
    } finally {
      expect(await s.stop()).toBe(0);
    }
  });
});
