/**
 * A plugin whose thread is blocked in native code (a synchronous child here: terminating the
 * thread cannot interrupt it) must not keep `patchbay boot` from ending: Node's exit waits for
 * every thread, so the CLI ends itself by SIGKILL after its report, naming PB_ERR_THREAD_STUCK.
 */
import { spawn } from "node:child_process";
import { afterAll, expect, it } from "vitest";
import { BIN, cleanupTempDirs, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

it("boot ends after its report when a thread is stuck in native code", async () => {
  const { dir, file } = writeConfig({
    defaults: { health_timeout_ms: 300 },
    memoryStores: { stuck: { plugin: "fx-health", config: { health: "native" } } },
  });
  const child = spawn(process.execPath, [BIN, "boot", "--config", file], { cwd: dir, env: { PATH: process.env.PATH } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  // The fixture's thread stays blocked for 20 s: ending before that is ending despite it.
  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | "hung">((resolve) => {
    const timer = setTimeout(() => resolve("hung"), 15_000);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
  if (ended === "hung") child.kill("SIGKILL");
  expect(ended).toEqual({ code: null, signal: "SIGKILL" });
  expect(stdout).toContain("memoryStores/stuck");
  expect(stderr).toContain("PB_ERR_HEALTH_TIMEOUT");
  expect(stderr).toContain("error PB_ERR_THREAD_STUCK: 1 worker thread is stuck in native code");
  expect(stderr).toContain("in place of 1");
}, 30_000);
