/**
 * Boot starts two instances per core at once (startLanes), MCP connectors first: their health
 * checks wait on a server (a child process or a remote), which then boots while the rest start.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/index.js";
import { startLanes } from "../../src/host/start-lanes.js";
import { cleanupTempDirs, FIXTURE_PLUGINS, ROOT, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

describe("boot's start order", () => {
  it("starts an MCP connector among the first, behind more instances than there are lanes", async () => {
    const log = path.join(tempDir(), "started.log");
    const lanes = startLanes();
    // localModels come before mcpConnectors in the registry, so without the rule the MCP connector starts last.
    const models = Object.fromEntries(
      Array.from({ length: lanes + 2 }, (_, i) => [
        `m${i}`,
        { plugin: "fx-start-log-model", config: { log, name: `localModels/m${i}` } },
      ]),
    );
    const host = await createHost({
      config: {
        plugins: [FIXTURE_PLUGINS],
        localModels: models,
        mcpConnectors: { last: { plugin: "fx-start-log-mcp", config: { log, name: "mcpConnectors/last" } } },
      },
      dir: ROOT,
      logLevel: "silent",
    });
    try {
      const order = readFileSync(log, "utf8").trim().split("\n");
      expect(order).toHaveLength(lanes + 3);
      // The first `lanes` start together, in either order; every later one waits for a free lane.
      expect(order.indexOf("mcpConnectors/last")).toBeLessThan(lanes);
    } finally {
      await host.close();
    }
  });
});
