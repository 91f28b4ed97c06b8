/**
 * The shared helpers an adapter's guard and detect stand on: protected paths compare segment-wise
 * and through symlinks; the client probe is bounded, and cached per binary until it changes.
 */
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { guardProtected, normalizedEvent } from "patchbay/adapter";
import { probeClient } from "../../src/adapter/probe.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

const write = (cwd: string, ...targets: string[]) =>
  normalizedEvent({ kind: "beforeTool", sessionId: "s", cwd, tool: "Write", targets });

describe("guardProtected", () => {
  it("compares segment-wise: /ws protects /ws/a, not /ws-backup/a", () => {
    const root = tempDir("pb-guard-");
    const ws = path.join(root, "ws");
    mkdirSync(ws);
    expect(guardProtected(write(root, path.join(root, "ws-backup", "a")), [ws])).toEqual({ decision: "allow" });
    expect(guardProtected(write(root, "ws/deep/new.txt"), [ws])).toMatchObject({
      decision: "deny",
      reason: expect.stringContaining(ws),
    });
    expect(guardProtected(write(root, "ws"), [ws]).decision).toBe("deny");
    expect(
      guardProtected(normalizedEvent({ kind: "beforeTool", sessionId: "s", cwd: root, tool: "Bash" }), [ws]).decision,
    ).toBe("allow");
  });

  it("follows symlinks: a write through a linked folder into a protected one is denied", () => {
    const root = tempDir("pb-guard-link-");
    const secrets = path.join(root, "secrets");
    mkdirSync(secrets);
    symlinkSync(secrets, path.join(root, "innocent"));
    expect(guardProtected(write(root, "innocent/key.pem"), [secrets])).toMatchObject({ decision: "deny" });
    expect(guardProtected(write(root, path.join(root, "innocent", "not-yet", "key.pem")), [secrets]).decision).toBe(
      "deny",
    );
  });
});

describe("probeClient", () => {
  function client(dir: string, script: string): void {
    writeFileSync(path.join(dir, "fake"), `#!/bin/sh\n${script}\n`);
    chmodSync(path.join(dir, "fake"), 0o755);
  }

  it("finds the binary on PATH and returns its output; absent is present:false", async () => {
    const bin = tempDir("pb-probe-");
    client(bin, "echo 'fake 1.2.3'");
    expect(await probeClient({ command: "fake", versionArgs: ["--version"] }, { env: { PATH: bin } })).toMatchObject({
      present: true,
      path: path.join(bin, "fake"),
      output: "fake 1.2.3\n",
      exitCode: 0,
    });
    expect(await probeClient({ command: "missing", versionArgs: [] }, { env: { PATH: bin } })).toMatchObject({
      present: false,
      path: null,
    });
  });

  it("a hanging version probe times out within its bound, present:false", async () => {
    const bin = tempDir("pb-probe-hang-");
    client(bin, "sleep 30 & sleep 30"); // a wrapper that forks and keeps the pipes open
    // The client sleeps 30 s, past the test's own timeout: only a bounded probe returns at all.
    const probe = await probeClient(
      { command: "fake", versionArgs: [] },
      { env: { PATH: `${bin}:/usr/bin:/bin` }, timeoutMs: 500 },
    );
    expect(probe).toMatchObject({ present: false, error: expect.stringContaining("timed out after 500 ms") });
  });

  it("caches the output per binary, and a changed binary is probed again", async () => {
    const bin = tempDir("pb-probe-cache-");
    const cacheFile = path.join(bin, "cache", "clients.json");
    client(bin, "echo 'fake 1.0.0'");
    const opts = { env: { PATH: bin }, cacheFile };
    expect((await probeClient({ command: "fake", versionArgs: [] }, opts)).output).toBe("fake 1.0.0\n");
    client(bin, "echo 'fake 2.0.0-upgraded'"); // another size: the cache entry no longer matches
    expect((await probeClient({ command: "fake", versionArgs: [] }, opts)).output).toBe("fake 2.0.0-upgraded\n");
  });
});
