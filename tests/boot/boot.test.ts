import { existsSync, mkdirSync, readFileSync, writeFileSync, cpSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, type PatchbayError } from "../../src/index.js";
import { cleanupTempDirs, FIXTURE_PLUGINS, tempDir, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

async function bootError(config: Record<string, unknown>, env: Record<string, string> = {}): Promise<PatchbayError> {
  const { file } = writeConfig(config);
  const err = await createHost({ config: file, env, logLevel: "silent", graceMs: 200 }).then(
    async (h) => {
      await h.close();
      throw new Error("boot should have failed");
    },
    (e: PatchbayError) => e,
  );
  return err;
}

describe("boot", () => {
  it("fails when a required health_check returns false, throws or times out, listing every failure", async () => {
    const err = await bootError({
      defaults: { health_timeout_ms: 300 },
      memoryStores: {
        good: { plugin: "fx-health", config: { health: "true" } },
        no: { plugin: "fx-health", config: { health: "false" } },
        boom: { plugin: "fx-health", config: { health: "throw" } },
        stuck: { plugin: "fx-health", config: { health: "hang" } },
      },
    });
    expect(err.code).toBe("PB_ERR_BOOT_FAILED");
    expect(err.exitCode).toBe(1);
    const failures = err.data.failures as { code: string; data: { instance: string } }[];
    expect(failures.map((f) => [f.data.instance, f.code])).toEqual([
      ["memoryStores/no", "PB_ERR_HEALTH_FAILED"],
      ["memoryStores/boom", "PB_ERR_HEALTH_FAILED"],
      ["memoryStores/stuck", "PB_ERR_HEALTH_TIMEOUT"],
    ]);
    expect(err.message).toContain("substrate unreachable");
  });

  it("stops every worker already started when the boot fails", async () => {
    const dir = tempDir();
    const beat = path.join(dir, "beat.txt");
    const err = await bootError({
      memoryStores: {
        alive: { plugin: "fx-health", config: { health: "true", heartbeat: beat } },
        dead: { plugin: "fx-health", config: { health: "false" } },
      },
    });
    expect(err.code).toBe("PB_ERR_BOOT_FAILED");
    expect(existsSync(beat)).toBe(true);
    const before = readFileSync(beat, "utf8");
    await new Promise((r) => setTimeout(r, 200));
    expect(readFileSync(beat, "utf8")).toBe(before);
  });

  it("reports a failing optional instance as degraded and boots", async () => {
    const { file } = writeConfig({
      memoryStores: {
        main: { plugin: "fx-health", config: { health: "true" } },
        extra: { plugin: "fx-health", required: false, config: { health: "false" } },
      },
    });
    const host = await createHost({ config: file, logLevel: "silent" });
    try {
      const report = host.report();
      expect(report.ok).toBe(true);
      expect(report.instances.map((i) => [i.id, i.state])).toEqual([
        ["memoryStores/main", "ready"],
        ["memoryStores/extra", "degraded"],
      ]);
      expect(report.instances[1].error?.code).toBe("PB_ERR_HEALTH_FAILED");
    } finally {
      await host.close();
    }
  });

  it("a row whose plan failed (a plugin of another kind) still shows the plugin's version", async () => {
    const host = await createHost({
      config: { plugins: [FIXTURE_PLUGINS], memoryStores: { wrong: { plugin: "fx-gw-mcp" } } },
      collect: true,
      logLevel: "silent",
    });
    try {
      const [row] = host.report().instances;
      expect(row.error?.code).toBe("PB_ERR_CONFIG_WRONG_KIND");
      expect(row.version).toBe("1.0.0");
    } finally {
      await host.close();
    }
  });

  it("collects every plugin load and config problem into one error with the right exit code", async () => {
    const err = await bootError({
      memoryStores: {
        typo: { plugin: "fx-healht" },
        wrong: { plugin: "fx-echo" },
        badcfg: { plugin: "fx-health", config: { health: "maybe" } },
      },
      mcpConnectors: {
        export: { plugin: "fx-bad-export" },
        lie: { plugin: "fx-kind-lie" },
        future: { plugin: "fx-future-api" },
        escape: { plugin: "fx-escape" },
      },
    });
    const byInstance = Object.fromEntries(
      (err.data.failures as { code: string; message: string; data: { instance?: string; plugin?: string } }[]).map(
        (f) => [f.data.instance ?? f.data.plugin, f],
      ),
    );
    expect(byInstance["memoryStores/typo"].code).toBe("PB_ERR_CONFIG_UNKNOWN_PLUGIN");
    expect(byInstance["memoryStores/typo"].message).toContain("fx-health");
    expect(byInstance["memoryStores/wrong"].code).toBe("PB_ERR_CONFIG_WRONG_KIND");
    expect(byInstance["memoryStores/badcfg"].code).toBe("PB_ERR_INSTANCE_CONFIG_INVALID");
    expect(byInstance["memoryStores/badcfg"].message).toContain("/memoryStores/badcfg/config/health");
    expect(byInstance["mcpConnectors/export"].code).toBe("PB_ERR_PLUGIN_LOAD_FAILED");
    expect(byInstance["mcpConnectors/lie"].message).toContain('definePlugin says "memory-store"');
    expect(byInstance["mcpConnectors/future"].code).toBe("PB_ERR_PLUGIN_API_MISMATCH");
    expect(byInstance["mcpConnectors/future"].message).toMatch(
      /needs plugin API \^9, but this host provides 1\.0\.0: upgrade Patchbay/,
    );
    expect(byInstance["mcpConnectors/escape"].code).toBe("PB_ERR_PLUGIN_ENTRY_ESCAPE");
    expect(err.exitCode).toBe(2); // a config error is the most basic cause
  });

  it("fails a plugin whose declared capability is not implemented", async () => {
    const err = await bootError({ memoryStores: { m: { plugin: "fx-missing-cap" } } });
    expect((err.data.failures as { code: string; message: string }[])[0]).toMatchObject({
      code: "PB_ERR_PLUGIN_LOAD_FAILED",
    });
    expect(err.message).toContain("write()");
    expect(err.exitCode).toBe(3);
  });

  it("refuses an entry that escapes through a symlink", async () => {
    const root = tempDir();
    const outside = path.join(root, "outside.ts");
    writeFileSync(outside, "export default 1;\n");
    mkdirSync(path.join(root, "plugins", "sneaky"), { recursive: true });
    writeFileSync(
      path.join(root, "plugins", "sneaky", "plugin.json"),
      JSON.stringify({ name: "sneaky", version: "1.0.0", kind: "mcp", entry: "index.ts", patchbay: "^1" }),
    );
    const { symlinkSync } = await import("node:fs");
    symlinkSync(outside, path.join(root, "plugins", "sneaky", "index.ts"));
    const { file } = writeConfig({ plugins: ["./plugins"], mcpConnectors: { s: { plugin: "sneaky" } } }, root);
    const err = await createHost({ config: file, logLevel: "silent" }).catch((e: PatchbayError) => e);
    expect((err as PatchbayError).message).toContain("PB_ERR_PLUGIN_ENTRY_ESCAPE");
  });

  it("names both folders when two configured plugins share a name", async () => {
    const root = tempDir();
    for (const d of ["a", "b"])
      cpSync(path.join(FIXTURE_PLUGINS, "fx-echo"), path.join(root, d, "fx-echo"), { recursive: true });
    const { file } = writeConfig({ plugins: ["./a", "./b"], mcpConnectors: {} }, root);
    const err = await createHost({ config: file, logLevel: "silent" }).catch((e: PatchbayError) => e);
    expect((err as PatchbayError).code).toBe("PB_ERR_BOOT_FAILED");
    expect((err as PatchbayError).message).toContain(path.join(root, "a", "fx-echo"));
    expect((err as PatchbayError).message).toContain(path.join(root, "b", "fx-echo"));
    expect((err as PatchbayError).exitCode).toBe(3);
  });

  it("never puts a resolved secret into a boot error", async () => {
    const err = await bootError(
      { memoryStores: { m: { plugin: "fx-health", config: { health: "${HEALTH_SECRET}" } } } },
      { HEALTH_SECRET: "hunter2-secret" },
    );
    expect(JSON.stringify({ m: err.message, d: err.data })).not.toContain("hunter2-secret");
  });

  it("warns about a missing plugin folder that connectors.json names, not about the implicit default", async () => {
    const root = tempDir();
    writeFileSync(path.join(root, "connectors.json"), JSON.stringify({ mcpConnectors: {} }));
    const quiet = await createHost({ config: path.join(root, "connectors.json"), logLevel: "silent" });
    expect(quiet.report().warnings).toEqual([]);
    await quiet.close();
    writeFileSync(
      path.join(root, "connectors.json"),
      JSON.stringify({ plugins: ["./vendor/plugins"], mcpConnectors: {} }),
    );
    const loud = await createHost({ config: path.join(root, "connectors.json"), logLevel: "silent" });
    expect(loud.report().warnings.map((w) => w.message)).toEqual([
      `Plugin folder ${path.join(root, "vendor", "plugins")} does not exist.`,
    ]);
    await loud.close();
  });
});
