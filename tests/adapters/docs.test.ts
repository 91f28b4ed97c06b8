/**
 * docs/adapters.md cannot drift: every `patchbay ...` command it shows is a real command with
 * flags that command takes, and it walks from `plugin new adapter` to a certified capability.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { usage } from "../../src/cli/main.js";
import { CertificationSchema } from "../../src/adapter-sdk/contract.js";
import { ROOT } from "../helpers.js";

const doc = readFileSync(path.join(ROOT, "docs", "adapters.md"), "utf8");

function table(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const line of usage().split("\n")) {
    const m = /^ {2}patchbay (.+)$/.exec(line);
    if (!m) continue;
    const syntax = m[1].split(/\s{2,}/)[0];
    const words = syntax
      .split(/\s+/)
      .filter((w, i, all) => /^[a-z][a-z-]*$/.test(w) && all.slice(0, i).every((x) => /^[a-z][a-z-]*$/.test(x)));
    out.set(words.join(" "), new Set([...syntax.matchAll(/--([a-z][a-z-]*)/g)].map((f) => f[1])));
  }
  return out;
}

function commands(markdown: string): string[] {
  const found: string[] = [];
  for (const block of [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1])) {
    for (const raw of block.split("\n")) {
      const line = raw.replace(/\s+#\s.*$/, "").trim();
      if (/^(npx )?patchbay /.test(line)) found.push(line);
    }
  }
  for (const m of markdown.replace(/^```[a-z]*\n[\s\S]*?^```/gm, "").matchAll(/`((?:npx )?patchbay [^`]+)`/g))
    found.push(m[1]);
  return found;
}

describe("docs/adapters.md", () => {
  it("shows only real commands, with flags those commands take", () => {
    const t = table();
    const lines = commands(doc);
    expect(lines.length).toBeGreaterThan(6);
    for (const line of lines) {
      const words = line
        .replace(/\[([^\]]+)\]/g, "$1")
        .split(/\s+/)
        .filter((w) => w !== "...")
        .map((w) => (/^<.*>$/.test(w) ? "x" : w));
      if (words[0] === "npx") words.shift();
      const parsed = parseArgs(words.slice(1));
      const command = [2, 1].map((n) => parsed.positionals.slice(0, n).join(" ")).find((c) => t.has(c));
      expect(command, line).toBeDefined();
      for (const flag of Object.keys(parsed.flags))
        expect(["config", "verbose", "help", ...t.get(command!)!], `${line}: --${flag}`).toContain(flag);
    }
  });

  it("walks from plugin new adapter to a certified capability, with a valid certification example", () => {
    const steps = [
      "### 1. Scaffold",
      "### 2. Measure the client",
      "### 3. Write the adapter",
      "### 4. Turn captures into fixtures",
      "### 5. Run the conformance kit",
      "### 6. Wire it and watch it",
      "### 7. Certify",
    ];
    let at = -1;
    for (const s of steps) {
      const i = doc.indexOf(s);
      expect(i, s).toBeGreaterThan(at);
      at = i;
    }
    const example = /```json\n(\{\n {2}"schemaVersion": 1,[\s\S]*?)```/.exec(doc)![1];
    expect(CertificationSchema.parse(JSON.parse(example)).evidence[0].capability).toBe("guards.beforeWrite");
  });
});
