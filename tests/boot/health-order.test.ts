/**
 * Boot checks each instance's health as soon as it has started (a slow substrate
 * boots while other workers still start), but never before the instances it is granted have
 * started: a health check that calls a grant must find it up, wherever it sits in the file.
 */
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/index.js";
import { cleanupTempDirs, FIXTURE_PLUGINS, ROOT } from "../helpers.js";

afterAll(cleanupTempDirs);

describe("boot's health checks", () => {
  it("wait for the instances an instance is granted, even when those start last", async () => {
    // The relay comes first and its target last, behind more instances than boot starts at once.
    const padding = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`pad${i}`, { plugin: "fx-echo" }]));
    const host = await createHost({
      config: {
        plugins: [FIXTURE_PLUGINS],
        mcpConnectors: {
          relay: {
            plugin: "fx-health-relay",
            grants: ["mcpConnectors/last"],
            config: { target: "mcpConnectors/last" },
          },
          ...padding,
          last: { plugin: "fx-echo" },
        },
      },
      dir: ROOT,
      logLevel: "silent",
    });
    try {
      const relay = host.report().instances.find((i) => i.id === "mcpConnectors/relay")!;
      expect(relay.state, JSON.stringify(relay.error)).toBe("ready");
    } finally {
      await host.close();
    }
  });

  it("still fail the boot when a required instance's granted target is down", async () => {
    await expect(
      createHost({
        config: {
          plugins: [FIXTURE_PLUGINS, path.join(ROOT, "bench", "plugins")],
          mcpConnectors: {
            relay: {
              plugin: "fx-health-relay",
              grants: ["mcpConnectors/gone"],
              config: { target: "mcpConnectors/gone" },
            },
            gone: { plugin: "fx-no-such-plugin", required: false },
          },
        },
        dir: ROOT,
        logLevel: "silent",
      }),
    ).rejects.toMatchObject({ code: expect.stringMatching(/^PB_ERR_/) });
  });
});
