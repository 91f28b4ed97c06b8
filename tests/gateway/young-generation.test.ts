/**
 * `serve` keeps V8's young generation at its starting size and collects its old generation once it
 * grew by half (bin/patchbay.mjs), also after its instances' worker threads started: Node puts
 * V8's flags back whenever a thread starts, which undid the flags from the first instance on. The
 * fixture preload makes garbage in the serve's main thread and reports sizes, never times.
 */
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { cleanupTempDirs, ROOT, until, writeConfig } from "../helpers.js";
import { startHttpServe } from "./_gateway.js";

afterAll(cleanupTempDirs);

const server = path.join(ROOT, "tests", "fixtures", "mcp", "demo-pid.mjs");
const preload = path.join(ROOT, "tests", "fixtures", "scripts", "young-generation.mjs");

it("serve --http keeps its heaps small after its instances' threads started", async () => {
  const { file } = writeConfig({
    plugins: [],
    mcpConnectors: {
      a: { plugin: "mcp-remote", config: { command: "node", args: [server, "pids"] } },
      b: { plugin: "mcp-remote", config: { command: "node", args: [server, "pids-b"] } },
    },
  });
  const serve = await startHttpServe(file, undefined, [], ["--expose-gc", "--import", preload]);
  try {
    const client = await serve.connect();
    // Both instances' threads have started once both answer.
    for (const tool of ["a__echo", "b__echo"])
      while ((await client.callTool({ name: tool, arguments: { text: "hi" } })).isError)
        await new Promise((resolve) => setTimeout(resolve, 20));
    await client.close();
    serve.proc.kill("SIGUSR2");
    await until(() => /old-generation-growth \d+/.test(serve.stderr()), 30_000, "the heap's sizes");
    const size = Number(/young-generation (\d+)/.exec(serve.stderr())![1]);
    // V8's starting semi-spaces are 1 MiB each; grown, they were 8 MiB each.
    expect(size).toBeLessThanOrEqual(4 * 1024 * 1024);
    // The old generation, from a full collection of its ~14-16 MiB, grew by 1.0x (Node 20 and 22)
    // and 1.9x (Node 24) of it before the next full collection with the flag; by 3.2-4.1x at V8's
    // own growing factor.
    const [, growth, base] = /old-generation-growth (\d+) \(\d+ kept, base (\d+)\)/.exec(serve.stderr())!.map(Number);
    expect(growth).toBeLessThan(2.5 * base);
  } finally {
    await serve.stop();
  }
});
