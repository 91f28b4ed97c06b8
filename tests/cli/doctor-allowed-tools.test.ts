/**
 * An allowed_tools entry the server does not offer allows nothing, silently: `patchbay doctor` warns
 * of each, with the offered name it most likely meant, and `list --live` shows them. A
 * correct list gives no such line.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, FIXTURE_PLUGINS, runCli, writeConfig } from "../helpers.js";

afterAll(cleanupTempDirs);

const config = (allowed: string[]) =>
  writeConfig({
    plugins: [FIXTURE_PLUGINS],
    mcpConnectors: { g: { plugin: "fx-gw-mcp", allowed_tools: allowed } },
  });

describe("allowed_tools names the server does not offer", () => {
  it("doctor warns of each with a did-you-mean; exit stays 0", async () => {
    const { dir } = config(["ecoh", "whoami", "zzzzzzzz"]);
    const r = await runCli(["doctor"], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'warn mcpConnectors/g allowed_tools: "ecoh" is not a tool mcpConnectors/g offers, so it allows nothing (did you mean "echo"?)',
    );
    expect(r.stdout).toMatch(/"zzzzzzzz" is not a tool mcpConnectors\/g offers, so it allows nothing;/);
    expect(r.stdout).not.toContain('"whoami" is not a tool');

    const live = await runCli(["list", "--live", "--json"], { cwd: dir });
    const g = JSON.parse(live.stdout).instances.find((i: { id: string }) => i.id === "mcpConnectors/g").capabilities;
    expect(g.allowedToolsNotOffered).toEqual([
      { name: "ecoh", suggestion: "echo" },
      { name: "zzzzzzzz", suggestion: null },
    ]);
    expect(g.tools.map((t: { name: string }) => t.name)).toEqual(["whoami"]);
    const human = await runCli(["list", "--live"], { cwd: dir });
    expect(human.stdout).toContain("tools: whoami; not offered: ecoh (did you mean echo?), zzzzzzzz");
  });

  it("says nothing when every name is offered", async () => {
    const { dir } = config(["echo", "whoami"]);
    const r = await runCli(["doctor"], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("allowed_tools");
  });
});
