/**
 * README.md opens with the two commands a new user runs, and every `npx patchbay ...` line it
 * shows names a real command with flags that command accepts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "../helpers.js";

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

  it("shows only real commands and flags", async () => {
    const lines = [...readme.matchAll(/^npx patchbay (.+?)(?:\s+#.*)?$/gm)].map((m) => m[1].trim());
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) {
      // `[--config F]`-style placeholders become the flag alone; values are not under test here.
      const words = line.replace(/\[([^\]]+)\]/g, "$1").split(/\s+/).filter((w) => w.startsWith("--") || /^[a-z]+$/.test(w));
      const command = words.filter((w) => !w.startsWith("--"));
      const flags = words.filter((w) => w.startsWith("--") && w !== "--config");
      const r = await runCli([...command.slice(0, 2).filter((w, i) => i === 0 || ["new", "test", "install", "uninstall"].includes(w)), ...flags, "--help"], { cwd: ROOT });
      expect(r.code, `${line}: ${r.stderr}`).toBe(0);
    }
  });
});
