/**
 * `patchbay call` reuses a running `patchbay serve` for the same connectors.json (over its
 * control socket) instead of booting: the call reaches the very worker the server runs.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, refuseModules, runCli } from "../helpers.js";
import { childEnv, connectStdio, gatewayConfig, toolText } from "./_gateway.js";

afterAll(cleanupTempDirs);

const workerOf = (stdout: string) =>
  JSON.parse((JSON.parse(stdout) as { content: { text: string }[] }).content[0].text).worker as string;

describe("patchbay call with a running serve", () => {
  it("goes through the running server's worker, and boots its own when none runs", async () => {
    const { file, dir } = gatewayConfig({ defaults: { health_interval_ms: 60_000 } });
    const s = await connectStdio(file);
    let served: string;
    try {
      served = JSON.parse(toolText(await s.client.callTool({ name: "gw__whoami", arguments: {} }))).worker;
      const r = await runCli(["call", "mcpConnectors/gw", "call", '"whoami"', "{}", "--config", file], {
        cwd: dir,
        env: childEnv(),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(workerOf(r.stdout)).toBe(served);
      // Answered by the server, the call never loads the host, zod, jiti or pino (they are what a boot costs).
      const lean = await runCli(["call", "mcpConnectors/gw", "call", '"whoami"', "{}", "--config", file], {
        cwd: dir,
        env: childEnv(),
        nodeArgs: refuseModules(/node_modules\/(zod|jiti|pino|tinypool)\/|\/dist\/(host|inspect|index)\.js$/),
      });
      expect(lean.code, lean.stderr).toBe(0);
      expect(workerOf(lean.stdout)).toBe(served);
      const denied = await runCli(["call", "mcpConnectors/gw", "call", '"secret"', "{}", "--config", file], {
        cwd: dir,
        env: childEnv(),
      });
      expect(denied.code).toBe(1);
      expect(denied.stderr).toContain("PB_ERR_TOOL_DENIED");
    } finally {
      await s.close();
    }
    const alone = await runCli(["call", "mcpConnectors/gw", "call", '"whoami"', "{}", "--config", file], {
      cwd: dir,
      env: childEnv(),
    });
    expect(alone.code, alone.stderr).toBe(0);
    expect(workerOf(alone.stdout)).not.toBe(served);
  });
});
