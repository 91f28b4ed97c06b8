/**
 * A client that names its npm package (client.packageName) is never run to learn its version: the
 * probe reads the package.json that holds the binary's real path. Proven with a client whose
 * --version leaves a file behind, as Gemini CLI's does under ~/.gemini.
 */
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageVersion, probeClient } from "../../src/adapter/probe.js";
import { cleanupTempDirs, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

/** node_modules/<name>/bundle/cli.js (writes `marker` when run) and .bin/cli → it, like npm lays it out. */
function installed(pkg: Record<string, unknown>): { bin: string; binDir: string; marker: string } {
  const root = tempDir("pb-probe-pkg-");
  const marker = path.join(root, "ran");
  const dir = path.join(root, "node_modules", "@acme", "cli");
  mkdirSync(path.join(dir, "bundle"), { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg));
  writeFileSync(path.join(dir, "bundle", "package.json"), JSON.stringify({ type: "module" }));
  const script = path.join(dir, "bundle", "cli.js");
  writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\necho 9.9.9\n`);
  chmodSync(script, 0o755);
  const binDir = path.join(root, "node_modules", ".bin");
  mkdirSync(binDir);
  symlinkSync("../@acme/cli/bundle/cli.js", path.join(binDir, "acme"));
  return { bin: path.join(binDir, "acme"), binDir, marker };
}

describe("probeClient with client.packageName", () => {
  it("answers the package.json version and never runs the client", async () => {
    const c = installed({ name: "@acme/cli", version: "1.2.3" });
    const probe = await probeClient(
      { command: "acme", versionArgs: ["--version"], packageName: "@acme/cli" },
      { env: { PATH: c.binDir } },
    );
    expect(probe).toMatchObject({ present: true, output: "1.2.3", exitCode: 0, path: c.bin });
    expect(existsSync(c.marker)).toBe(false);
  });

  it("runs the client when the package.json is another package's, or its version is not one", async () => {
    for (const pkg of [
      { name: "@other/cli", version: "1.2.3" },
      { name: "@acme/cli", version: "x".repeat(1_000_000) },
      { name: "@acme/cli", version: 7 },
    ]) {
      const c = installed(pkg);
      expect(packageVersion(c.bin, "@acme/cli")).toBeNull();
      const probe = await probeClient(
        { command: "acme", versionArgs: ["--version"], packageName: "@acme/cli" },
        { env: { PATH: `${c.binDir}:/usr/bin:/bin` } },
      );
      expect(probe.output.trim()).toBe("9.9.9");
      expect(existsSync(c.marker)).toBe(true);
    }
  });
});
