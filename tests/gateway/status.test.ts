/**
 * `patchbay status` asks the running server over its control socket (.patchbay/serve.sock, 0600)
 * and exits 1 with PB_ERR_SERVER_NOT_RUNNING when none answers.
 */
import { readFileSync, statSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, runCli } from "../helpers.js";
import { childEnv, connectStdio, gatewayConfig, startHttpServe, toolText } from "./_gateway.js";

afterAll(cleanupTempDirs);

describe("patchbay status", () => {
  it("says no server is running and exits 1", async () => {
    const { file, dir } = gatewayConfig();
    const r = await runCli(["status", "--config", file], { cwd: dir, env: childEnv() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("PB_ERR_SERVER_NOT_RUNNING");
  });

  it("shows every instance's state, health, calls, errors and latency from the running server", async () => {
    const { file, dir } = gatewayConfig({ defaults: { timeout_ms: 3_000, health_interval_ms: 60_000 } });
    const s = await connectStdio(file);
    try {
      await s.client.callTool({ name: "gw__echo", arguments: { text: "a" } });
      await s.client.callTool({ name: "gw__fail", arguments: {} });
      const sock = path.join(dir, ".patchbay", "serve.sock");
      expect(statSync(sock).mode & 0o777).toBe(0o600);
      const r = await runCli(["status", "--json", "--config", file], { cwd: dir, env: childEnv() });
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.transports).toEqual({ mcp: true, http: null });
      const gw = doc.instances.find((i: { id: string }) => i.id === "mcpConnectors/gw");
      expect(gw).toMatchObject({ state: "ready", healthy: true, calls: 2, errors: 1, restarts: 0 });
      expect(gw.p50Ms).toBeGreaterThanOrEqual(0);
      const human = await runCli(["status", "--config", file], { cwd: dir, env: childEnv() });
      expect(human.stdout).toMatch(/mcpConnectors\/gw\s+ready\s+healthy/);
    } finally {
      await s.close();
    }
  });

  it("answers a malformed control request with an error and keeps answering", async () => {
    const { file, dir } = gatewayConfig();
    const s = await startHttpServe(file);
    try {
      const sock = path.join(dir, ".patchbay", "serve.sock");
      const ask = (line: string) =>
        new Promise<string>((resolve) => {
          const c = net.createConnection(sock, () => c.end(line));
          let out = "";
          c.on("data", (d) => (out += d)).on("end", () => resolve(out));
        });
      expect(JSON.parse(await ask("{nope\n"))).toMatchObject({ ok: false, error: { code: "PB_ERR_USAGE" } });
      expect(JSON.parse(await ask('{"op":"shutdown"}\n'))).toMatchObject({ ok: false });
      expect(JSON.parse(await ask('{"op":"status"}\n'))).toMatchObject({
        ok: false,
        error: { code: "PB_ERR_CONTROL_UNAUTHORIZED" },
      });
      const key = readFileSync(path.join(dir, ".patchbay", "serve.key"), "utf8").trim();
      expect(JSON.parse(await ask(JSON.stringify({ op: "status", key }) + "\n"))).toMatchObject({
        ok: true,
        value: { transports: { http: s.url } },
      });
    } finally {
      await s.stop();
    }
  });

  it("lets a second serve --mcp for the same config serve its own client without the control channel", async () => {
    const { file } = gatewayConfig({ defaults: { health_interval_ms: 60_000 } });
    const first = await connectStdio(file);
    const second = await connectStdio(file);
    try {
      expect(toolText(await second.client.callTool({ name: "gw__echo", arguments: { text: "two" } }))).toBe("two");
      expect(toolText(await first.client.callTool({ name: "gw__echo", arguments: { text: "one" } }))).toBe("one");
      expect(second.stderr()).toContain("runs without a control channel");
    } finally {
      await second.close();
      await first.close();
    }
  });
});
