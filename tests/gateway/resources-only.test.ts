/**
 * An upstream that offers resources and no tools (its tools/list is "Method not found", since it
 * declares no tools capability) is still served: its resources are listed and read through the
 * gateway, and its empty tool list takes nothing from the others'.
 */
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, writeConfig } from "../helpers.js";
import { connectStdio } from "./_gateway.js";

const SERVER = fileURLToPath(new URL("../fixtures/mcp/resources-only-server.mjs", import.meta.url));

afterAll(cleanupTempDirs);

describe("an upstream with resources and no tools", () => {
  it("is listed and read through serve --mcp; tools/list is empty, not an error", async () => {
    const { file } = writeConfig({
      plugins: [],
      defaults: { timeout_ms: 10_000, health_interval_ms: 60_000 },
      mcpConnectors: { docs: { plugin: "mcp-remote", config: { command: "node", args: [SERVER] } } },
    });
    const s = await connectStdio(file);
    try {
      expect((await s.client.listTools()).tools).toEqual([]);
      const { resources } = await s.client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(["docs://readme"]);
      const read = await s.client.readResource({ uri: "docs://readme" });
      expect(read.contents).toEqual([{ uri: "docs://readme", mimeType: "text/plain", text: "only resources here" }]);
    } finally {
      await s.close();
    }
  }, 40_000);
});
