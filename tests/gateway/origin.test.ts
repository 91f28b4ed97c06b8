/**
 * DNS-rebinding protection: which Host and Origin headers the HTTP gateway accepts.
 */
import { describe, expect, it } from "vitest";
import { requestPath } from "../../src/gateway/http.js";
import { allowedHostnames, checkHostAndOrigin, hostAndOriginCheck } from "../../src/gateway/origin.js";
import { bearerCheck, bearerMatches } from "../../src/gateway/state-dir.js";

describe("Host and Origin checks", () => {
  const loopback = allowedHostnames("127.0.0.1", {});

  it("accepts loopback names on any port, with or without a same-host Origin", () => {
    for (const host of ["localhost:7777", "127.0.0.1:80", "[::1]:7777", "LOCALHOST"])
      expect(checkHostAndOrigin(host, undefined, loopback), host).toBeNull();
    expect(checkHostAndOrigin("localhost:7777", "http://localhost:6274", loopback)).toBeNull();
  });

  it("refuses a foreign Host, a foreign or opaque Origin, and a missing Host", () => {
    expect(checkHostAndOrigin("evil.example.com", undefined, loopback)).toMatch(/Host/);
    expect(checkHostAndOrigin("localhost.evil.example.com:7777", undefined, loopback)).toMatch(/Host/);
    expect(checkHostAndOrigin("localhost:7777", "http://evil.example.com", loopback)).toMatch(/Origin/);
    expect(checkHostAndOrigin("localhost:7777", "null", loopback)).toMatch(/null/);
    expect(checkHostAndOrigin("localhost:7777", "not a url", loopback)).toMatch(/Origin/);
    expect(checkHostAndOrigin(undefined, undefined, loopback)).toMatch(/no Host/);
  });

  it("adds names from PATCHBAY_ALLOWED_HOSTS and the bound address", () => {
    const behindProxy = allowedHostnames("10.0.0.5", { PATCHBAY_ALLOWED_HOSTS: "mcp.example.com, other.example" });
    expect(checkHostAndOrigin("mcp.example.com", "https://mcp.example.com", behindProxy)).toBeNull();
    expect(checkHostAndOrigin("10.0.0.5:7777", undefined, behindProxy)).toBeNull();
    expect(checkHostAndOrigin("evil.example.com", undefined, behindProxy)).toMatch(/Host/);
  });

  it("remembers only a pair that passed: whatever else comes next is checked in full", () => {
    const check = hostAndOriginCheck(loopback);
    const pairs: [string | undefined, string | undefined][] = [
      ["localhost:7777", undefined],
      ["localhost:7777", undefined],
      ["localhost:7777", "http://evil.example.com"],
      ["localhost:7777", "null"],
      ["localhost:7777", "http://localhost:6274"],
      ["localhost:7777", "http://localhost:6274"],
      ["evil.example.com", "http://localhost:6274"],
      ["evil.example.com", undefined],
      [undefined, undefined],
      ["localhost:7777", undefined],
    ];
    for (const [host, origin] of pairs)
      expect(check(host, origin), `${host} ${origin}`).toBe(checkHostAndOrigin(host, origin, loopback));
  });
});

describe("request path", () => {
  it("is what new URL gives as the pathname, for the two paths served and everything else", () => {
    for (const target of [
      "/mcp",
      "/mcp?a=1",
      "/mcp#x",
      "/mcp?a#b",
      "/status",
      "/status?x",
      "/./mcp",
      "//mcp",
      "/mcp/",
      "/MCP",
      "/%6dcp",
      "/a/../mcp",
      "/mcp;x",
      "http://h/mcp",
      "/",
      "",
      "/nothing?mcp",
    ])
      expect(requestPath(target), target).toBe(new URL(target, "http://localhost").pathname);
  });
});

describe("bearer token check", () => {
  it("accepts exactly the token, after Bearer", () => {
    expect(bearerMatches("Bearer abc", "abc")).toBe(true);
    expect(bearerMatches("bearer abc", "abc")).toBe(true);
    expect(bearerMatches("Bearer abcd", "abc")).toBe(false);
    expect(bearerMatches("Basic abc", "abc")).toBe(false);
    expect(bearerMatches(undefined, "abc")).toBe(false);
    expect(bearerMatches("Bearer ", "abc")).toBe(false);
  });

  it("checks each header against the token made once, whatever came before", () => {
    const matches = bearerCheck("s3cret-token");
    for (const [header, ok] of [
      ["Bearer s3cret-token", true],
      ["Bearer s3cret-tokeN", false],
      ["BEARER  s3cret-token ", true],
      ["Bearer s3cret-token", true],
      ["Bearers3cret-token", false],
      ["Bearer s3cret-token-and-more", false],
      ["Bearer", false],
      [undefined, false],
    ] as const)
      expect(matches(header), String(header)).toBe(ok);
  });
});
