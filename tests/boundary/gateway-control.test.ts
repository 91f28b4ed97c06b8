/**
 * The attack suite's gateway part: a hostile plugin inside a running `patchbay serve` tries the
 * server's own doors. The control socket (.patchbay/serve.sock) and the HTTP endpoint must not
 * run anything for a plugin in process or sandbox isolation (a thread is the host's own process:
 * documented as no boundary), while `patchbay status` and `patchbay call` keep working.
 * Sandbox runs need PATCHBAY_BWRAP (.ci/bubblewrap.sh) and skip with the reason otherwise.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/index.js";
import { sandboxProblem } from "../../src/spawn/sandbox-runtime.js";
import { cleanupTempDirs, FIXTURE_PLUGINS, runCli, tempDir, writeConfig } from "../helpers.js";
import { childEnv, startHttpServe, type HttpServe } from "../gateway/_gateway.js";

type Mode = "process" | "sandbox";
const bwrap = process.env.PATCHBAY_BWRAP;
const sandboxSkip = bwrap ? sandboxProblem(bwrap) : "PATCHBAY_BWRAP is not set (run .ci/bubblewrap.sh)";
if (sandboxSkip) console.log(`gateway-control.test.ts: sandbox mode skipped: ${sandboxSkip}`);
const MODES: Mode[] = sandboxSkip ? ["process"] : ["process", "sandbox"];

afterAll(cleanupTempDirs);

describe.each(MODES)("a hostile plugin in %s mode inside a running serve", (mode) => {
  let serve: HttpServe;
  let dir: string;
  let skills: string;
  const env = () => childEnv(bwrap ? { PATCHBAY_BWRAP: bwrap } : {});

  /** Runs one attack tool of the hostile plugin through the legitimate `patchbay call` (over the control socket). */
  async function attack(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await runCli(
      [
        "call",
        "mcpConnectors/h",
        "call",
        tool,
        JSON.stringify(args),
        "--json",
        "--config",
        path.join(dir, "connectors.json"),
      ],
      { cwd: dir, env: env(), timeoutMs: 60_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  }

  beforeAll(async () => {
    dir = tempDir("pb-gwsec-");
    skills = path.join(dir, "skills");
    writeConfig(
      {
        plugins: [FIXTURE_PLUGINS],
        defaults: { timeout_ms: 20_000, health_interval_ms: 60_000 },
        mcpConnectors: {
          h: { plugin: "fx-hostile", isolation: mode },
          n: { plugin: "fx-echo" },
        },
        skillStores: { primary: { plugin: "fs-skill-store", config: { dir: skills } } },
      },
      dir,
    );
    // No PATCHBAY_TOKEN: serve writes .patchbay/token, which the plugin must not be able to read either.
    serve = await startHttpServe(path.join(dir, "connectors.json"), env());
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
  });

  it("cannot run a call through the control socket: refused without the server's key, nothing written", async () => {
    const socket = path.join(dir, ".patchbay", "serve.sock");
    const request = {
      op: "call",
      instance: "skillStores/primary",
      method: "write",
      args: ["pwned", "# written by a plugin\n"],
    };
    const out = await attack("control", { socket, request });
    // A process child reaches the socket (Node's permission model does not check Unix connects);
    // a sandbox does not even see .patchbay/. Nothing may run either way.
    expect(out.connected).toBe(mode === "process");
    if (out.connected)
      expect(JSON.parse(String(out.answer))).toMatchObject({
        ok: false,
        error: { code: "PB_ERR_CONTROL_UNAUTHORIZED" },
      });
    expect(existsSync(path.join(skills, "pwned.md"))).toBe(false);
    const status = await attack("control", { socket, request: { op: "status" } });
    if (status.connected)
      expect(JSON.parse(String(status.answer))).toMatchObject({
        ok: false,
        error: { code: "PB_ERR_CONTROL_UNAUTHORIZED" },
      });
  });

  it("cannot hold the control socket: long lines refused, idle connections capped, the operator still gets in", async () => {
    const socket = path.join(dir, ".patchbay", "serve.sock");
    const config = path.join(dir, "connectors.json");
    // 60 connections each holding 200 KiB of a line without the key, then 80 that send nothing.
    const long = await attack("control-hold", { socket, connections: 60, bytes: 200 * 1024, holdMs: 1_000 });
    const holding = attack("control-hold", { socket, connections: 80, bytes: 0, holdMs: 4_000 });
    await new Promise((r) => setTimeout(r, 1_000)); // the plugin's connections are open by now
    const status = await runCli(["status", "--json", "--config", config], { cwd: dir, env: env() });
    const idle = await holding;
    if (mode === "sandbox") {
      // It does not even see .patchbay/: nothing connected, nothing to close.
      expect(long.answers).toEqual([]);
    } else {
      expect(long.closedByServer).toBe(60);
      expect(long.answers).toHaveLength(1);
      expect(JSON.parse(String((long.answers as string[])[0]))).toMatchObject({
        ok: false,
        error: { code: "PB_ERR_USAGE", message: "Control request too long." },
      });
      // The oldest 16 made room for the rest, and one more for the operator's status when it came
      // after all 80 (on a slow machine it may come among them: then its place was never taken).
      expect(idle.closedByServer).toBeGreaterThanOrEqual(16);
      expect(idle.closedByServer).toBeLessThanOrEqual(17);
      expect(idle.answers).toEqual([]);
    }
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).instances.map((i: { id: string }) => i.id)).toContain("mcpConnectors/h");
  });

  it("cannot read the control key or the bearer token", async () => {
    for (const file of ["serve.key", "token"]) {
      const p = path.join(dir, ".patchbay", file);
      expect(existsSync(p)).toBe(true);
      const out = await attack("read", { path: p });
      expect(out.text, `${file} was readable`).toBeUndefined();
      expect(out.error).toBeDefined();
    }
    const seen = await attack("env", {});
    expect(JSON.stringify(seen.env)).not.toContain(
      readFileSync(path.join(dir, ".patchbay", "serve.key"), "utf8").trim(),
    );
  });

  it("cannot call a tool over HTTP without the bearer token", async () => {
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    const out = await attack("http", { url: serve.url, body });
    // A sandbox without permissions.net has no network at all; a process child reaches 127.0.0.1 and gets 403.
    if (out.status !== undefined) expect(out.status).toBe(403);
    else expect(out.error).toBeDefined();
  });

  it("leaves the legitimate clients working: status and call over the control socket", async () => {
    const status = await runCli(["status", "--json", "--config", path.join(dir, "connectors.json")], {
      cwd: dir,
      env: env(),
    });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).instances.map((i: { id: string }) => i.id)).toContain("mcpConnectors/h");
    const r = await runCli(
      ["call", "skillStores/primary", "list", "--json", "--config", path.join(dir, "connectors.json")],
      { cwd: dir, env: env() },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(
      JSON.parse(status.stdout).instances.find((i: { id: string }) => i.id === "skillStores/primary"),
    ).toMatchObject({ calls: 0 });
    const after = JSON.parse(
      (await runCli(["status", "--json", "--config", path.join(dir, "connectors.json")], { cwd: dir, env: env() }))
        .stdout,
    );
    // The call went through the running server (counted there), not a host of its own.
    expect(after.instances.find((i: { id: string }) => i.id === "skillStores/primary")).toMatchObject({ calls: 1 });
  });
});

describe("a plugin whose manifest asks for PATCHBAY_TOKEN", () => {
  it("never gets the gateway's bearer token in its environment", async () => {
    const plugins = tempDir("pb-gwsec-plugins-");
    cpSync(path.join(FIXTURE_PLUGINS, "fx-hostile"), path.join(plugins, "fx-hostile"), { recursive: true });
    const manifest = path.join(plugins, "fx-hostile", "plugin.json");
    writeFileSync(
      manifest,
      JSON.stringify({
        ...JSON.parse(readFileSync(manifest, "utf8")),
        permissions: { env: ["PATCHBAY_TOKEN", "FX_GRANTED"] },
      }),
    );
    const { file } = writeConfig({ plugins: [plugins], mcpConnectors: { h: { plugin: "fx-hostile" } } });
    const host = await createHost({
      config: file,
      env: { PATCHBAY_TOKEN: "gateway-token-xyz", FX_GRANTED: "granted" },
      logLevel: "silent",
    });
    try {
      const { env } = (await host.mcp("h").call("env", {})) as { env: Record<string, string> };
      expect(env.FX_GRANTED).toBe("granted");
      expect(env.PATCHBAY_TOKEN).toBeUndefined();
    } finally {
      await host.close();
    }
  });
});
