/**
 * What an upstream server sends during a call reaches only the session whose call caused it. Two
 * clients of one `serve --http`, both offering sampling: client A's call makes server-everything
 * ask for sampling (served inside Patchbay by the instance's local model: it never crosses to any
 * client), while both run long operations that report progress; each hears only its own progress.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, writeConfig } from "../helpers.js";
import { startHttpServe } from "./_gateway.js";
import { EVERYTHING } from "../mcp/_host.js";

afterAll(cleanupTempDirs);

const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const TOKENS = { a: "client-a-token-0123456789", b: "client-b-token-0123456789" };

interface Watched {
  client: Client;
  asked: string[];
  errors: string[];
}

async function connect(url: string, token: string): Promise<Watched> {
  const client = new Client(
    { name: "isolation-test", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  const w: Watched = { client, asked: [], errors: [] };
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    w.asked.push("sampling");
    return { role: "assistant", content: { type: "text", text: "from a client" }, model: "client" };
  });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    w.asked.push("elicitation");
    return { action: "decline" };
  });
  client.onerror = (e) => w.errors.push(String(e));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );
  return w;
}

describe("a call's upstream traffic stays in its session", () => {
  it("sampling asked by A's call is served locally, reaching no client; progress reaches only its caller", async () => {
    const { file } = writeConfig({
      plugins: ["tests/fixtures/mcp/plugins"].map((p) => `${process.cwd()}/${p}`),
      defaults: { timeout_ms: 20_000, health_interval_ms: 60_000 },
      localModels: { small: { plugin: "fx-sampling-model" } },
      mcpConnectors: {
        everything: {
          plugin: "mcp-remote",
          grants: ["localModels/small"],
          config: {
            command: "node",
            args: [EVERYTHING, "stdio"],
            sampling: { model: "localModels/small", max_tokens: 16 },
          },
        },
      },
      gateway: {
        clients: {
          a: { tokenSha256: sha(TOKENS.a), expose: { "mcpConnectors/everything": true } },
          b: { tokenSha256: sha(TOKENS.b), expose: { "mcpConnectors/everything": true } },
        },
      },
    });
    const s = await startHttpServe(file, { PATCHBAY_TOKEN: "operator-token-0123456789" });
    const [a, b] = await Promise.all([connect(s.url, TOKENS.a), connect(s.url, TOKENS.b)]).catch((e) => {
      throw new Error(`${e}\n${s.stderr()}`);
    });
    try {
      const progressA: number[] = [];
      const progressB: number[] = [];
      const long = (w: Watched, steps: number, into: number[]) =>
        w.client.callTool(
          { name: "everything__trigger-long-running-operation", arguments: { duration: 0.6, steps } },
          undefined,
          { onprogress: (p) => into.push(p.total ?? -1) },
        );
      const [sampled] = await Promise.all([
        a.client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: "question from A" } }),
        long(a, 5, progressA),
        long(b, 3, progressB),
      ]);
      expect(JSON.stringify(sampled.content)).toContain("local-model answer");
      expect(JSON.stringify(sampled.content)).toContain("question from A");
      expect(a.asked).toEqual([]);
      expect(b.asked).toEqual([]);
      expect(progressA.length).toBeGreaterThan(0);
      expect(progressB.length).toBeGreaterThan(0);
      expect(progressA.every((t) => t === 5)).toBe(true);
      expect(progressB.every((t) => t === 3)).toBe(true);
      expect([...a.errors, ...b.errors]).toEqual([]);
    } finally {
      await a.client.close();
      await b.client.close();
      await s.stop();
    }
  });
});
