/**
 * Threads started before the config is read (src/spawn/warm-threads.ts) are the same threads an
 * instance would get: the environment its manifest permits and nothing else of the host's, the
 * default heap limit (an instance with a limit of its own gets a thread of its own), and what no
 * instance took is stopped after the boot. Real worker threads, a real host; `patchbay boot` from
 * bin/, which starts them, on a config whose plugin reports what its thread sees.
 */
import { execFile } from "node:child_process";
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/index.js";
import { prestartThreads, takeWarmThread } from "../../src/spawn/warm-threads.js";
import { cleanupTempDirs, ROOT, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

/** A plugin folder whose one tool answers with its thread's env names and heap limit. */
function probePlugins(): string {
  const root = tempDir("pb-warm-");
  const dir = path.join(root, "env-probe");
  mkdirSync(path.join(dir, "src"), { recursive: true });
  writeFileSync(
    path.join(dir, "plugin.json"),
    JSON.stringify({
      name: "env-probe",
      version: "1.0.0",
      kind: "mcp",
      entry: "src/index.ts",
      patchbay: "^1",
      permissions: { env: ["PB_WARM_GRANTED"] },
    }),
  );
  writeFileSync(
    path.join(dir, "src", "index.ts"),
    [
      `import { getHeapStatistics } from "node:v8";`,
      `import { threadId } from "node:worker_threads";`,
      `import { definePlugin, z } from "patchbay/plugin";`,
      `export default definePlugin({ kind: "mcp", config: z.object({}), create: () => ({`,
      `  health_check: async () => process.env.PB_WARM_GRANTED === "yes",`,
      `  list_tools: async () => [{ name: "seen" }],`,
      `  call: async () => ({ threadId, env: Object.keys(process.env).sort(), heapMb: Math.round(getHeapStatistics().heap_size_limit / 2 ** 20) }) }) });`,
    ].join("\n"),
  );
  return root;
}

/** The id the next worker thread gets: ids are handed out in order, so a warm thread's is below a later one's. */
async function nextThreadId(): Promise<number> {
  const w = new Worker("", { eval: true });
  const id = w.threadId; // -1 once it has exited
  await once(w, "exit");
  return id + 1;
}

type Seen = { threadId: number; env: string[]; heapMb: number };

const env = { PB_WARM_GRANTED: "yes", PB_WARM_HOSTS_OWN: "not-for-plugins", PATH: process.env.PATH ?? "" };

describe("warm threads", () => {
  it("give an instance exactly the environment its manifest permits, and the default heap limit", async () => {
    const first = await nextThreadId();
    prestartThreads(2);
    const plugins = probePlugins();
    const host = await createHost({
      config: { plugins: [plugins], mcpConnectors: { a: { plugin: "env-probe" }, b: { plugin: "env-probe" } } },
      dir: plugins,
      env,
      logLevel: "silent",
    });
    try {
      for (const id of ["a", "b"]) {
        const seen = (await host.mcp(id).call("seen", {})) as Seen;
        expect([first, first + 1]).toContain(seen.threadId); // one of the threads started before the host
        expect(seen.env).toEqual(["PB_WARM_GRANTED"]);
        expect(seen.heapMb).toBeGreaterThan(400); // 512 MiB of old generation by default
      }
      expect(takeWarmThread(512)).toBeNull(); // both taken
    } finally {
      await host.close();
    }
  });

  it("are not taken by an instance with a heap limit of its own, and are stopped once the boot has started everything", async () => {
    const first = await nextThreadId();
    prestartThreads(1);
    const plugins = probePlugins();
    const host = await createHost({
      config: { plugins: [plugins], mcpConnectors: { small: { plugin: "env-probe", max_memory_mb: 64 } } },
      dir: plugins,
      env,
      logLevel: "silent",
    });
    try {
      const seen = (await host.mcp("small").call("seen", {})) as Seen;
      expect(seen.threadId).toBeGreaterThan(first); // a thread of its own, not the warm one
      expect(seen.heapMb).toBeLessThan(200);
      expect(seen.env).toEqual(["PB_WARM_GRANTED"]);
      expect(takeWarmThread(512)).toBeNull(); // the one it did not take was released
    } finally {
      await host.close();
    }
  });

  it("serve `patchbay boot`, which starts them, and it exits when done", async () => {
    const plugins = probePlugins();
    const config = path.join(plugins, "connectors.json");
    writeFileSync(
      config,
      JSON.stringify({ plugins: ["."], mcpConnectors: { a: { plugin: "env-probe" }, b: { plugin: "env-probe" } } }),
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(ROOT, "bin", "patchbay.mjs"), "boot", "--config", config, "--json"],
      { env: { ...env, PATCHBAY_HOME: plugins }, timeout: 60_000 },
    );
    const report = JSON.parse(stdout) as { instances: { id: string; state: string }[] };
    // Ready means health_check() saw its granted variable: set in a thread started without it.
    expect(report.instances.map((i) => [i.id, i.state])).toEqual([
      ["mcpConnectors/a", "ready"],
      ["mcpConnectors/b", "ready"],
    ]);
  });
});
