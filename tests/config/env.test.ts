import { describe, expect, it } from "vitest";
import { findForbiddenKeys, interpolate, resolveEnv } from "../../src/config/env.js";
import { loadConfig } from "../../src/config/load.js";
import { caught, tempProject } from "./fixtures.js";

describe("interpolate", () => {
  const env = { HOME_DIR: "/home/op", EMPTY: "", TOKEN: "s3cr3t-token" };
  const text = (s: string) => interpolate(s, env).text;

  it("replaces ${VAR}, ${VAR:-default} and $${", () => {
    expect(text("${HOME_DIR}/x")).toBe("/home/op/x");
    expect(text("${NOPE:-fallback}")).toBe("fallback");
    expect(text("${EMPTY:-fallback}")).toBe("fallback");
    expect(text("${HOME_DIR:-fallback}")).toBe("/home/op");
    expect(text("${NOPE:-}")).toBe("");
    expect(text("${NOPE:-http://h:1/p?q=a&b=$c}")).toBe("http://h:1/p?q=a&b=$c");
    expect(text("$${HOME_DIR} costs $5 and $$")).toBe("${HOME_DIR} costs $5 and $$");
    expect(text("a${HOME_DIR}b${TOKEN}c")).toBe("a/home/opbs3cr3t-tokenc");
    expect(text("${EMPTY}")).toBe("");
  });

  it("does not re-scan substituted values or defaults", () => {
    expect(interpolate("${V}", { V: "${TOKEN}" }).text).toBe("${TOKEN}");
  });

  it("reports the values that came from the environment, not defaults", () => {
    expect(interpolate("${TOKEN} ${NOPE:-dflt} ${HOME_DIR:-x} ${EMPTY}", env).secrets).toEqual([
      "s3cr3t-token",
      "/home/op",
    ]);
  });

  it("reports malformed references", () => {
    expect(interpolate("${", env).malformed).toHaveLength(1);
    expect(interpolate("abc ${X", env).malformed[0]).toMatch(/unterminated/);
    expect(interpolate("${1X}", env).malformed[0]).toMatch(/not a valid reference/);
    expect(interpolate("${}", env).malformed[0]).toMatch(/not a valid reference/);
    expect(interpolate("${A:B}", env).malformed[0]).toMatch(/\$\{NAME:-default\}/);
  });
});

describe("resolveEnv", () => {
  it("resolves strings at any depth, in values and array items but never keys", () => {
    const r = resolveEnv({ "${K}": ["${A}", { deep: "${A}!" }], n: 5, b: true, z: null }, { A: "aa", K: "kk" });
    expect(r.value).toEqual({ "${K}": ["aa", { deep: "aa!" }], n: 5, b: true, z: null });
    expect(r.secrets).toEqual(["aa"]);
  });

  it("collects every missing variable with its pointer", () => {
    const r = resolveEnv({ a: { "x/y": "${ONE}", list: ["ok", "${TWO} and ${ONE}"] } }, {});
    expect(r.missing).toEqual([
      { pointer: "/a/x~1y", variable: "ONE", message: "${ONE} is not set" },
      { pointer: "/a/list/1", variable: "TWO", message: "${TWO} is not set" },
      { pointer: "/a/list/1", variable: "ONE", message: "${ONE} is not set" },
    ]);
  });

  it("finds forbidden keys on raw JSON, where __proto__ is an own key", () => {
    const raw = JSON.parse('{"a": {"__proto__": {"x": 1}}, "b": [{"constructor": {}}], "c": {"prototype": 1}}');
    expect(findForbiddenKeys(raw).map((i) => i.pointer)).toEqual(["/a/__proto__", "/b/0/constructor", "/c/prototype"]);
  });
});

describe("loadConfig and the environment", () => {
  const spec = {
    memoryStores: { primary: { plugin: "sqlite-memory", config: { path: "${PATCHBAY_HOME:-.patchbay}/memory.db" } } },
    mcpConnectors: {
      primary: {
        plugin: "mcp-remote",
        config: { url: "${MCP_URL}", headers: { Authorization: "Bearer ${GH_TOKEN}" }, literal: "$${NOT_A_VAR}" },
      },
    },
  };

  it("reports two missing variables at once, each with its pointer", async () => {
    const p = tempProject();
    p.write("connectors.json", spec);
    const err = await caught(() => loadConfig({ cwd: p.root, env: { PATCHBAY_HOME: "/var/pb" } }));
    expect(err.code).toBe("PB_ERR_CONFIG_ENV_MISSING");
    expect(err.data.issues.map((i: { pointer: string; variable: string }) => [i.pointer, i.variable])).toEqual([
      ["/mcpConnectors/primary/config/url", "MCP_URL"],
      ["/mcpConnectors/primary/config/headers/Authorization", "GH_TOKEN"],
    ]);
    expect(err.data.variables).toEqual(["MCP_URL", "GH_TOKEN"]);
    expect(err.data.file).toBe(p.write("connectors.json", spec));
    expect(err.message).toContain("/mcpConnectors/primary/config/headers/Authorization: ${GH_TOKEN} is not set");
    expect(err.message).toContain("/mcpConnectors/primary/config/url: ${MCP_URL} is not set");
    expect(err.message).not.toContain("/var/pb");
  });

  it("resolves values, lists them as secrets, and keeps $${ literal", async () => {
    const env = { GH_TOKEN: "ghp_supersecret", MCP_URL: "https://mcp.example.com/mcp" };
    const cfg = await loadConfig({ config: spec, cwd: "/", env });
    const mcp = cfg.instances.find((i) => i.id === "mcpConnectors/primary")!;
    expect(mcp.config).toEqual({
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer ghp_supersecret" },
      literal: "${NOT_A_VAR}",
    });
    expect(cfg.instances[0].config).toEqual({ path: ".patchbay/memory.db" });
    expect([...cfg.secrets].sort()).toEqual(["ghp_supersecret", "https://mcp.example.com/mcp"]);
  });

  it("never puts a resolved value into an error message", async () => {
    const SECRET = "ghp_do-not-print-me";
    const env = { GH_TOKEN: SECRET, NUM: SECRET, NAME: SECRET, SEC: SECRET };
    const cases: Record<string, unknown>[] = [
      // schema errors on fields holding a secret
      {
        defaults: { timeout_ms: "${NUM}" },
        mcpConnectors: { p: { plugin: "${NAME}", grants: ["${GH_TOKEN}"], allowed_tools: "${SEC}" } },
      },
      // an alias and a grant whose targets came from the environment
      { localModels: { a: "${GH_TOKEN}" } },
      { localModels: { m: { plugin: "x", grants: ["localModels/${GH_TOKEN}"] } } },
      // a missing variable next to a resolved one
      { localModels: { m: { plugin: "x", config: { a: "${GH_TOKEN}", b: "${MISSING}" } } } },
    ];
    for (const config of cases) {
      const err = await caught(() => loadConfig({ config, cwd: "/", env }));
      expect(err.code).toMatch(/^PB_ERR_CONFIG_/);
      expect(err.message).not.toContain(SECRET);
      expect(JSON.stringify(err.data)).not.toContain(SECRET);
    }
  });
});
