/**
 * GET /metrics of the real `serve --http` (and `--metrics-port` beside `serve --mcp`): tool calls
 * made through the real SDK client are counted by instance, tool and outcome; access is refused
 * as for /mcp; a hostile upstream with 10,000 tool names cannot grow the series past the label
 * caps; and Debian's promtool accepts the names (skipped, with the reason, without it).
 */
import { request } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, writeConfig, tempDir } from "../helpers.js";
import { HOSTILE } from "../mcp/_host.js";
import { connectStdio, gatewayConfig, startHttpServe, toolText } from "./_gateway.js";
import { parseExposition, promtool, promtoolCheck, scrape, sum } from "./_metrics.js";

afterAll(cleanupTempDirs);

const LABEL_CAP_TOOL = 200;
/** Instances are named by their section and key, as in `patchbay status`. */
const GW = "mcpConnectors/gw";

function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", headers }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("serve --http GET /metrics", () => {
  it("counts N tool calls by instance, tool and outcome, and reads health, sessions and the catalog from the status", async () => {
    const { file } = gatewayConfig();
    const s = await startHttpServe(file);
    try {
      const client = await s.connect();
      const N = 7;
      for (let i = 0; i < N; i++)
        expect(toolText(await client.callTool({ name: "gw__echo", arguments: { text: `n${i}` } }))).toBe(`n${i}`);
      await client.callTool({ name: "gw__fail", arguments: {} });
      await client.callTool({ name: "gw__fail", arguments: {} });
      await client.callTool({ name: "no_such_tool", arguments: {} });
      const m = await scrape(`${s.base}/metrics`, s.token);
      expect(sum(m, "patchbay_tool_calls_total", { instance_id: GW, tool: "gw__echo", outcome: "ok" })).toBe(N);
      expect(sum(m, "patchbay_tool_calls_total", { instance_id: GW, tool: "gw__fail", outcome: "tool_error" })).toBe(2);
      expect(
        sum(m, "patchbay_tool_calls_total", {
          instance_id: "none",
          tool: "unknown",
          outcome: "PB_ERR_GATEWAY_TOOL_UNKNOWN",
        }),
      ).toBe(1);
      expect(sum(m, "patchbay_tool_call_duration_seconds_count", { instance_id: GW })).toBe(N + 2);
      expect(sum(m, "patchbay_tool_call_duration_seconds_bucket", { instance_id: GW, le: "+Inf" })).toBe(N + 2);
      expect(sum(m, "patchbay_instance_healthy", { instance_id: GW })).toBe(1);
      expect(sum(m, "patchbay_instance_state", { instance_id: GW, state: "ready" })).toBe(1);
      expect(sum(m, "patchbay_instance_restarts_total", { instance_id: GW })).toBe(0);
      expect(sum(m, "patchbay_http_sessions_open")).toBe(1);
      const status = (await (
        await fetch(`${s.base}/status`, { headers: { authorization: `Bearer ${s.token}` } })
      ).json()) as { tools: number };
      expect(sum(m, "patchbay_catalog_tools")).toBe(status.tools);
      // initialize, its notification, N + 3 calls: every /mcp request answered 2xx is counted.
      expect(sum(m, "patchbay_http_requests_total", { path: "/mcp" })).toBeGreaterThanOrEqual(N + 4);
      await client.close();
    } finally {
      await s.stop();
    }
  });

  it("refuses a missing or wrong token and a foreign Host as /mcp does, with nothing of the metrics in the body", async () => {
    const { file } = gatewayConfig();
    const s = await startHttpServe(file);
    try {
      const none = await rawGet(`${s.base}/metrics`, {});
      expect(none.status).toBe(403);
      expect(JSON.parse(none.body).error).toMatchObject({
        code: "PB_ERR_GATEWAY_UNAUTHORIZED",
        message: expect.stringContaining("no token was sent"),
      });
      const mcpNone = await rawGet(s.url, {});
      expect(mcpNone).toEqual(none);
      const wrong = await rawGet(`${s.base}/metrics`, { authorization: "Bearer nope" });
      expect(wrong.status).toBe(403);
      expect(wrong.body).not.toContain("patchbay_");
      const foreign = await rawGet(`${s.base}/metrics`, {
        authorization: `Bearer ${s.token}`,
        host: "evil.example.com",
      });
      expect(foreign.status).toBe(403);
      expect(JSON.parse(foreign.body).error.code).toBe("PB_ERR_GATEWAY_HOST_DENIED");
      // The refusals themselves are counted (by path and status), under the path asked for: the
      // missing and the wrong token, and the foreign Host.
      const m = await scrape(`${s.base}/metrics`, s.token);
      expect(sum(m, "patchbay_http_requests_total", { path: "/metrics", status: "403" })).toBe(3);
    } finally {
      await s.stop();
    }
  });

  it("keeps the series bounded when a hostile upstream lists 10,000 tools and each is called", async () => {
    const dir = tempDir("pb-metrics-hostile-");
    const { file } = writeConfig(
      {
        plugins: [],
        defaults: { timeout_ms: 10_000, health_interval_ms: 60_000 },
        mcpConnectors: {
          hostile: { plugin: "mcp-remote", config: { command: "node", args: [HOSTILE, "--many-tools", "10000"] } },
        },
      },
      dir,
    );
    const s = await startHttpServe(file);
    try {
      const client = await s.connect();
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).filter((n) => /__m\d+$/.test(n));
      // The catalog already keeps 500 of the 10,000; calling more than the label cap shows the fold.
      expect(names.length).toBeGreaterThan(LABEL_CAP_TOOL + 50);
      const called = names.slice(0, LABEL_CAP_TOOL + 50);
      for (let i = 0; i < called.length; i += 25)
        await Promise.all(called.slice(i, i + 25).map((name) => client.callTool({ name, arguments: {} })));
      const text = await (await fetch(`${s.base}/metrics`, { headers: { authorization: `Bearer ${s.token}` } })).text();
      const m = parseExposition(text);
      const calls = m.filter((x) => x.name === "patchbay_tool_calls_total");
      const toolValues = new Set(calls.map((x) => x.labels.tool));
      expect(toolValues.size).toBeLessThanOrEqual(LABEL_CAP_TOOL + 1);
      expect(toolValues.has("other")).toBe(true);
      expect(sum(m, "patchbay_tool_calls_total", { tool: "other" })).toBe(called.length - LABEL_CAP_TOOL);
      expect(sum(m, "patchbay_tool_calls_total")).toBe(called.length);
      // The whole exposition stays small: a few hundred series, not one per tool name offered.
      expect(m.length).toBeLessThan(600);
      await client.close();
    } finally {
      await s.stop();
    }
  }, 120_000);

  it("passes promtool check metrics (Debian's prometheus package)", async (ctx) => {
    const bin = promtool();
    if (!bin) {
      console.log("skipped: promtool is not installed (Debian package prometheus; .ci/prometheus.sh installs it)");
      return ctx.skip();
    }
    const { file } = gatewayConfig();
    const s = await startHttpServe(file);
    try {
      const client = await s.connect();
      await client.callTool({ name: "gw__echo", arguments: { text: "x" } });
      const text = await (await fetch(`${s.base}/metrics`, { headers: { authorization: `Bearer ${s.token}` } })).text();
      expect(promtoolCheck(bin, text)).toEqual({ status: 0, output: "" });
      await client.close();
    } finally {
      await s.stop();
    }
  });
});

describe("serve --mcp --metrics-port", () => {
  it("serves /metrics on 127.0.0.1 without a token, and refuses a foreign Host", async () => {
    const { file } = gatewayConfig();
    const session = await connectStdio(file, ["--metrics-port", "0"]);
    try {
      await session.client.callTool({ name: "gw__echo", arguments: { text: "a" } });
      await session.client.callTool({ name: "gw__echo", arguments: { text: "b" } });
      const url = /Prometheus metrics at (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(session.stderr())?.[1];
      expect(url, session.stderr()).toBeDefined();
      const m = await scrape(url as string);
      expect(sum(m, "patchbay_tool_calls_total", { instance_id: GW, tool: "gw__echo", outcome: "ok" })).toBe(2);
      expect(sum(m, "patchbay_http_sessions_open")).toBe(0);
      const foreign = await rawGet(url as string, { host: "evil.example.com" });
      expect(foreign.status).toBe(403);
      expect((await rawGet((url as string).replace("/metrics", "/status"), {})).status).toBe(404);
    } finally {
      await session.close();
    }
  });
});
