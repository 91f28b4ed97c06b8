/**
 * The adapter SDK and the host carry every client without knowing one: no code under src/ names
 * a vendor (claude, codex, gemini, anthropic, openai, google). Everything client-specific lives
 * in plugins/<adapter>/ (hooks, install plan, certify driver). Comments and help examples may name
 * a client; code may not (a branch on a vendor name is exactly what this forbids).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers.js";

const VENDOR = /claude|codex|gemini|anthropic|openai|google/i;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

/** Code only: comments removed, and help `examples: [...]` (user-facing sample lines) dropped. */
function codeOf(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1")
    .replace(/examples:\s*\[[^\]]*\]/g, "");
}

function offenders(root: string): string[] {
  const out: string[] = [];
  for (const file of files(root)) {
    codeOf(readFileSync(file, "utf8"))
      .split("\n")
      .forEach((line, i) => {
        if (VENDOR.test(line)) out.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

describe("vendor neutrality", () => {
  it("no code under src/ names a client vendor", () => {
    expect(offenders(path.join(ROOT, "src"))).toEqual([]);
  });

  it("catches a planted vendor branch (the check is not vacuous)", () => {
    expect(VENDOR.test(codeOf('if (certName !== "claude-code") throw new Error("x");'))).toBe(true);
    expect(VENDOR.test(codeOf('import { driveGemini } from "./gemini-driver.js";'))).toBe(true);
    expect(VENDOR.test(codeOf("// e.g. the Codex client\nconst x = 1;"))).toBe(false);
  });

  it("every bundled adapter ships a certify driver, so certify needs nothing client-specific in src/", () => {
    for (const name of ["claude-code", "codex", "gemini-cli"]) {
      const index = readFileSync(path.join(ROOT, "plugins", name, "src", "index.ts"), "utf8");
      expect(index, name).toMatch(/certifyDriver: "src\/certify\.ts"/);
    }
  });
});
