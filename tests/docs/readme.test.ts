/**
 * README.md opens with the two commands a new user runs, every `npx patchbay ...` line it shows
 * names a real command with flags that command declares (checked by the CLI's own parser), and it
 * tells an embedder how to install the package under its real name.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "../helpers.js";
import { commandsIn, problemWith } from "./_cli-lines.js";

const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));

describe("README.md", () => {
  it("opens with npm start and npm test, and both scripts exist", () => {
    const firstBlock = readme.split("```")[1];
    expect(firstBlock).toContain("npm start");
    expect(firstBlock).toContain("npm test");
    expect(pkg.scripts.start).toContain("boot");
    expect(pkg.scripts.test).toBeTruthy();
  });

  it("shows only real commands and flags: each line parses with the CLI's own per-command flags", () => {
    const lines = commandsIn(readme).filter((l) => /^npx patchbay /.test(l));
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(problemWith(line), line).toBeNull();
  });

  it("the real bin refuses a flag its command does not take, even next to --help", async () => {
    // What the old check (appending --help) could not see: --help returned before flags were read.
    const r = await runCli(["boot", "--live", "--help"], { cwd: ROOT });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("patchbay boot does not take --live");
    expect((await runCli(["list", "--live", "--help"], { cwd: ROOT })).code).toBe(0);
  });

  it("gives embedders an install line with the package's real name", () => {
    expect(readme).toContain(`npm i ${pkg.name}`);
    expect(pkg.bin.patchbay).toBeTruthy();
  });
});
