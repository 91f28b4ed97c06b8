import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, FIXTURE_PLUGINS, runCli, tempDir, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

const healthy = {
  mcpConnectors: { echo: { plugin: "fx-echo", config: { token: "${FX_TOKEN}" } } },
  memoryStores: { m: { plugin: "fx-health", config: { health: "true" } } },
};
const SECRET = "cli-secret-value-42";

describe("patchbay CLI", () => {
  it("boot prints one row per instance and exits 0", async () => {
    const { dir } = writeConfig(healthy);
    const r = await runCli(["boot"], { cwd: dir, env: { FX_TOKEN: SECRET } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/mcpConnectors\/echo\s+fx-echo@1\.2\.3\s+ready\s+\d+ ms/);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack traces
  });

  it("boot --json prints one JSON document", async () => {
    const { dir } = writeConfig(healthy);
    const r = await runCli(["boot", "--json"], { cwd: dir, env: { FX_TOKEN: SECRET } });
    const doc = JSON.parse(r.stdout);
    expect(doc.ok).toBe(true);
    expect(doc.instances.map((i: { id: string; state: string }) => `${i.id}:${i.state}`)).toEqual([
      "memoryStores/m:ready",
      "mcpConnectors/echo:ready",
    ]);
  });

  it("boot exits 1 when a required instance is unhealthy, 2 on a config error, 3 on a plugin load error", async () => {
    const unhealthy = writeConfig({ memoryStores: { m: { plugin: "fx-health", config: { health: "false" } } } });
    const r1 = await runCli(["boot"], { cwd: unhealthy.dir });
    expect(r1.code).toBe(1);
    expect(r1.stderr).toContain("PB_ERR_BOOT_FAILED");
    expect(r1.stderr).toContain("memoryStores/m");

    const typo = writeConfig({ mcpConnectors: { echo: { plugin: "fx-echo", allowed_tool: ["echo"] } } });
    const r2 = await runCli(["boot"], { cwd: typo.dir });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain("PB_ERR_CONFIG_INVALID");
    expect(r2.stderr).toContain('did you mean "allowed_tools"');
    expect(r2.stderr).toContain("/mcpConnectors/echo/allowed_tool");

    const broken = writeConfig({ mcpConnectors: { x: { plugin: "fx-bad-export" } } });
    const r3 = await runCli(["boot"], { cwd: broken.dir });
    expect(r3.code).toBe(3);
    expect(r3.stderr).toContain("PB_ERR_PLUGIN_LOAD_FAILED");
  });

  it("never prints a plugin name that came from a ${VAR}, in the report, --json or a call's error", async () => {
    const { dir } = writeConfig({ mcpConnectors: { leaky: { plugin: "${FX_PLUGIN}" } } });
    const env = { FX_PLUGIN: SECRET };
    for (const args of [["boot"], ["boot", "--json"], ["call", "mcpConnectors/leaky", "list_tools"]]) {
      const r = await runCli(args, { cwd: dir, env });
      expect(r.stdout + r.stderr, args.join(" ")).toContain("PB_ERR_CONFIG_UNKNOWN_PLUGIN");
      expect(r.stdout + r.stderr, args.join(" ")).not.toContain(SECRET);
    }
  });

  it("refuses a word a command takes no argument for, with exit 2", async () => {
    const { dir } = writeConfig(healthy);
    for (const args of [
      ["doctor", "extra"],
      ["boot", "extra"],
      ["list", "x"],
      ["init", "here"],
    ]) {
      const r = await runCli(args, { cwd: dir, env: { FX_TOKEN: SECRET } });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(`error PB_ERR_USAGE: patchbay ${args[0]} takes no arguments (got ${args[1]}).`);
    }
  });

  it("reports every missing environment variable at once with its pointer", async () => {
    const { dir } = writeConfig({
      mcpConnectors: { echo: { plugin: "fx-echo", config: { token: "${MISSING_ONE}", prefix: "${MISSING_TWO}" } } },
    });
    const r = await runCli(["boot"], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("PB_ERR_CONFIG_ENV_MISSING");
    expect(r.stderr).toContain("/mcpConnectors/echo/config/token");
    expect(r.stderr).toContain("MISSING_TWO");
  });

  it("finds connectors.json through --config anywhere on the line, PATCHBAY_CONFIG, then upwards", async () => {
    const { dir, file } = writeConfig(healthy);
    const nested = path.join(dir, "a", "b");
    mkdirSync(nested, { recursive: true });
    expect((await runCli(["boot"], { cwd: nested, env: { FX_TOKEN: SECRET } })).code).toBe(0);
    const elsewhere = tempDir();
    expect((await runCli(["boot", "--config", file], { cwd: elsewhere, env: { FX_TOKEN: SECRET } })).code).toBe(0);
    expect((await runCli(["--config", file, "boot"], { cwd: elsewhere, env: { FX_TOKEN: SECRET } })).code).toBe(0);
    expect((await runCli(["boot"], { cwd: elsewhere, env: { FX_TOKEN: SECRET, PATCHBAY_CONFIG: file } })).code).toBe(0);
    const none = await runCli(["boot"], { cwd: elsewhere });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("PB_ERR_CONFIG_NOT_FOUND");
  });

  it("call prints the JSON result; a failed call prints code, message and hint on stderr and exits 1", async () => {
    const { dir } = writeConfig(healthy);
    const ok = await runCli(["call", "mcpConnectors/echo", "call", "echo", '{"text":"hello"}'], {
      cwd: dir,
      env: { FX_TOKEN: SECRET },
    });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ text: "hello" });
    const failed = await runCli(["call", "mcpConnectors/echo", "call", '"throw"', "{}"], {
      cwd: dir,
      env: { FX_TOKEN: SECRET },
    });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("PB_ERR_PLUGIN_THREW");
    expect(failed.stderr).toContain("hint:");
    expect(failed.stderr).not.toContain(SECRET);
    expect(failed.stdout).toBe("");
  });

  it("call rejects bad usage with exit 2", async () => {
    const { dir } = writeConfig(healthy);
    expect((await runCli(["call", "mcpConnectors/echo"], { cwd: dir })).code).toBe(2);
    // A bare word is a string (a tool name needs no JSON quotes); broken JSON stays an error.
    const notJson = await runCli(["call", "mcpConnectors/echo", "call", "echo", "{text:1}"], {
      cwd: dir,
      env: { FX_TOKEN: SECRET },
    });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("ARG 2 is not valid JSON");
    expect((await runCli(["boot", "--jsno"], { cwd: dir })).code).toBe(2);
    expect((await runCli(["frobnicate"], { cwd: dir })).code).toBe(2);
  });

  it("list shows plugins with kind, version, folder and capabilities, and which bundled plugin a configured one shadows", async () => {
    const root = tempDir();
    const shadow = path.join(root, "plugins", "noop-agent");
    mkdirSync(path.join(shadow, "src"), { recursive: true });
    writeFileSync(
      path.join(shadow, "plugin.json"),
      JSON.stringify({ name: "noop-agent", version: "9.9.9", kind: "agent", entry: "src/index.ts", patchbay: "^1" }),
    );
    writeFileSync(path.join(shadow, "src", "index.ts"), "export default 1;\n");
    writeFileSync(
      path.join(root, "connectors.json"),
      JSON.stringify({ agentConnectors: { a: { plugin: "noop-agent" } } }),
    );
    const r = await runCli(["list", "--json"], { cwd: root });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const noop = doc.plugins.find((p: { name: string }) => p.name === "noop-agent");
    expect(noop).toMatchObject({ version: "9.9.9", bundled: false });
    expect(noop.shadows).toMatch(/plugins\/noop-agent$/);
    expect(doc.plugins.find((p: { name: string }) => p.name === "sqlite-memory")).toMatchObject({
      kind: "memory-store",
      bundled: true,
      capabilities: ["write", "get"],
    });
    const human = await runCli(["list"], { cwd: root });
    expect(human.stdout).toContain("shadows bundled");
  });

  it("doctor lists every problem with its fix and exits like boot", async () => {
    const { dir } = writeConfig({
      memoryStores: {
        a: { plugin: "fx-health", config: { health: "false" } },
        b: { plugin: "fx-health", config: { health: "throw" } },
        c: { plugin: "nope" },
      },
    });
    const r = await runCli(["doctor"], { cwd: dir });
    expect(r.code).toBe(2);
    for (const id of ["memoryStores/a", "memoryStores/b", "memoryStores/c"]) expect(r.stdout).toContain(id);
    expect(r.stdout.match(/fix: /g)?.length).toBeGreaterThanOrEqual(3);
    const json = await runCli(["doctor", "--json"], { cwd: dir });
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, exit: 2 });
  });

  it("doctor warns, and does not fail, for a broken plugin no instance uses", async () => {
    const dir = tempDir();
    const broken = path.join(dir, "more", "broken");
    mkdirSync(broken, { recursive: true });
    writeFileSync(path.join(broken, "plugin.json"), '{ "name": "broken", "kind": "mpc" }');
    writeConfig({ plugins: [FIXTURE_PLUGINS, "./more"], ...healthy }, dir);
    const r = await runCli(["doctor"], { cwd: dir, env: { FX_TOKEN: SECRET } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^warn plugins: /m);
    expect(r.stdout).toMatch(
      /^warn plugin: .*broken\/plugin\.json: .*\/kind: "mpc" is not a kind \(did you mean "mcp"\?\)/m,
    );
    expect(r.stdout).not.toMatch(/^FAIL /m);
    expect(r.stdout).toContain("doctor: everything required is healthy.");
  });

  it("serve stays up until SIGTERM, then shuts down cleanly", async () => {
    const { dir } = writeConfig(healthy);
    const { spawn } = await import("node:child_process");
    const { BIN } = await import("../helpers.js");
    const child = spawn(process.execPath, [BIN, "serve"], {
      cwd: dir,
      env: { PATH: process.env.PATH, FX_TOKEN: SECRET },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    await new Promise<void>((resolve) => child.stderr.on("data", () => stderr.includes("serving") && resolve()));
    // Still up a while after it said so: nothing but the signal may end it.
    const early = await Promise.race([
      closed.then((c) => `exited with ${c}`),
      new Promise((r) => setTimeout(() => r(null), 1_000)),
    ]);
    expect(early, stderr).toBeNull();
    expect(stderr).not.toContain("stopped");
    child.kill("SIGTERM");
    const code = await closed;
    expect(code).toBe(0);
    expect(stderr).toContain("stopped");
  });
});
