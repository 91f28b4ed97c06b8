/**
 * Boot progress: the host tells each instance's outcome as it happens (a fast instance before a
 * slow one), and the CLI's printer shows those lines only once the boot has been slow.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/index.js";
import { progressPrinter } from "../../src/cli/commands/boot.js";
import { cleanupTempDirs, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

describe("boot progress", () => {
  it("reports each instance as its boot ends, the quick one before the one whose health check hangs", async () => {
    const { file } = writeConfig({
      memoryStores: {
        slow: { plugin: "fx-health", required: false, health_timeout_ms: 400, config: { health: "hang" } },
        quick: { plugin: "fx-health", config: { health: "true" } },
      },
    });
    const seen: string[] = [];
    const host = await createHost({
      config: file,
      logLevel: "silent",
      graceMs: 100,
      onProgress: (i) => seen.push(`${i.id}:${i.state}${i.error ? `:${i.error.code}` : ""}`),
    });
    await host.close();
    expect(seen).toEqual(["memoryStores/quick:ready", "memoryStores/slow:degraded:PB_ERR_HEALTH_TIMEOUT"]);
  });

  it("prints nothing for a quick boot, and every line (held ones first) once the boot is slow", async () => {
    const quick: string[] = [];
    const p1 = progressPrinter((l) => quick.push(l), true, 10_000);
    p1.onProgress!({ id: "a/b", state: "ready", healthMs: 3, error: null });
    p1.done();
    expect(quick).toEqual([]);

    const slow: string[] = [];
    let started!: () => void;
    const announced = new Promise<void>((r) => (started = r));
    const p2 = progressPrinter(
      (l) => {
        slow.push(l);
        if (l === "booting…") started();
      },
      true,
      1,
    );
    p2.onProgress!({ id: "a/first", state: "ready", healthMs: 3, error: null });
    await announced;
    p2.onProgress!({
      id: "a/second",
      state: "failed",
      healthMs: null,
      error: { code: "PB_ERR_PLUGIN_LOAD_FAILED", message: "x", hint: "", data: {} },
    });
    p2.done();
    expect(slow).toEqual(["booting…", "  ready    a/first (3 ms)", "  failed   a/second: PB_ERR_PLUGIN_LOAD_FAILED"]);
    expect(progressPrinter(() => {}, false).onProgress).toBeUndefined();
  });
});
