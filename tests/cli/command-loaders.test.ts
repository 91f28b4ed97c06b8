/**
 * The command table (src/cli/commands.ts) and the modules dispatch loads (src/cli/command-loaders.ts)
 * name the same commands: a declared command without a module would fail only when a user runs it,
 * and a module without a declaration could never be reached.
 */
import { describe, expect, it } from "vitest";
import { COMMAND_LOADERS, loadCommand } from "../../src/cli/command-loaders.js";
import { COMMANDS } from "../../src/cli/commands.js";

describe("command loaders", () => {
  it("has one loader per declared command and no other", () => {
    expect(COMMANDS.length).toBeGreaterThan(10);
    expect(Object.keys(COMMAND_LOADERS).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });

  it("loads a function for every declared command", async () => {
    for (const decl of COMMANDS) expect(typeof (await loadCommand(decl)), decl.name).toBe("function");
  });

  it("refuses a declaration it has no module for, as Patchbay's own error", async () => {
    await expect(loadCommand({ name: "no such", summary: "planted" })).rejects.toMatchObject({
      code: "PB_ERR_INTERNAL",
      message: expect.stringContaining("patchbay no such"),
    });
  });
});
