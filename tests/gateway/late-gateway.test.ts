/**
 * `serve` loads the gateway while the first instances start, so the gateway can be created after
 * every instance is up, with an empty catalog. Until start() has built the first catalog, a
 * request must see the boot's view (a list waits for the boot, a call waits for its tool) and
 * never that empty catalog.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/index.js";
import { Gateway } from "../../src/gateway/gateway.js";
import { cleanupTempDirs, ROOT } from "../helpers.js";
import { gatewayConfig } from "./_gateway.js";

afterAll(cleanupTempDirs);

describe("a gateway created after its instances booted", () => {
  it("answers a list or a call made while start() builds its first catalog from that catalog, not an empty one", async () => {
    const { file } = gatewayConfig({ defaults: { health_interval_ms: 60_000 } });
    const host = await createHost({ config: file, dir: ROOT, logLevel: "silent" });
    const gateway = new Gateway(host, {
      expose: host.config?.gateway.expose ?? {},
      logger: host.logger,
      stateDir: null,
    });
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "late-gateway-test", version: "1.0.0" });
    try {
      await gateway.createServer().connect(serverEnd);
      await client.connect(clientEnd);
      // start() is under way (its catalog is built from worker calls) when the requests arrive.
      const started = gateway.start();
      const listed = client.listTools();
      const called = client.callTool({ name: "gw__echo", arguments: { text: "late" } });
      await started;
      expect((await listed).tools.map((t) => t.name)).toContain("gw__echo");
      expect((await called).isError).toBeFalsy();
      expect(JSON.stringify((await called).content)).toContain("late");
    } finally {
      await client.close();
      await gateway.close();
      await host.close();
    }
  });
});
