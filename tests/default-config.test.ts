/**
 * The embedded default (`npm start`): the bundled connectors.json boots on a fresh clone with no
 * environment and no external service, and its instances answer real calls.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, ROOT, runCli, tempDir } from "./helpers.js";

afterAll(cleanupTempDirs);

describe("the bundled connectors.json", () => {
  const home = tempDir("pb-home-");
  const env = { PATCHBAY_HOME: home, OLLAMA_BASE_URL: "http://127.0.0.1:9" };

  it("boots with every required instance ready and the optional ollama degraded", async () => {
    const r = await runCli(["boot", "--json"], { cwd: ROOT, env });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    const states = Object.fromEntries(doc.instances.map((i: { id: string; state: string }) => [i.id, i.state]));
    expect(states).toEqual({
      "memoryStores/primary": "ready",
      "localModels/gemma2": "degraded",
      "mcpConnectors/primary": "ready",
      "agentConnectors/primary": "ready",
      "skillStores/primary": "ready",
    });
  });

  it("answers an MCP tool call through the demo server over stdio", async () => {
    const r = await runCli(["call", "mcpConnectors/primary", "call", '"add"', '{"a":2,"b":3}'], { cwd: ROOT, env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      structuredContent: { sum: 5 },
      content: [{ type: "text", text: "5" }],
    });
  });

  it("writes a memory and finds it again by full-text search", async () => {
    const w = await runCli(
      ["call", "memoryStores/primary", "write", '{"summary":"deploy the patchbay release","domain_tags":["ops"]}'],
      { cwd: ROOT, env },
    );
    expect(w.code, w.stderr).toBe(0);
    const q = await runCli(
      ["call", "memoryStores/primary", "query", '{"query":"patchbay release","limit":5,"mode":"fts"}'],
      { cwd: ROOT, env },
    );
    expect(q.code, q.stderr).toBe(0);
    expect(JSON.parse(q.stdout)[0]).toMatchObject({ summary: "deploy the patchbay release", domain_tags: ["ops"] });
  });
});
