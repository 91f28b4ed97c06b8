import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CATALOGUE } from "../../src/errors.js";
import { ROOT } from "../helpers.js";

const page = readFileSync(path.join(ROOT, "docs", "errors.md"), "utf8");
const documented = [...page.matchAll(/^## (PB_ERR_[A-Z0-9_]+)$/gm)].map((m) => m[1]);

describe("docs/errors.md and the error catalogue", () => {
  it("documents every code in the catalogue, with its hint and exit code", () => {
    for (const [code, entry] of Object.entries(CATALOGUE)) {
      expect(documented, `${code} is missing from docs/errors.md`).toContain(code);
      const section = page.slice(page.indexOf(`## ${code}\n`)).split(/\n## /)[0];
      expect(section, `${code}: hint differs`).toContain(entry.hint);
      expect(section, `${code}: exit code differs`).toContain(`Exit code ${entry.exit}.`);
    }
  });

  it("documents no code the catalogue does not have", () => {
    expect(documented.filter((c) => !Object.hasOwn(CATALOGUE, c))).toEqual([]);
  });

  it("is not empty", () => {
    expect(documented.length).toBeGreaterThan(10);
  });
});

describe("codes used in the source", () => {
  it("are all in the catalogue", async () => {
    const { readdirSync } = await import("node:fs");
    const files = (readdirSync(path.join(ROOT, "src"), { recursive: true }) as string[]).filter((f) =>
      f.endsWith(".ts"),
    );
    const used = new Set<string>();
    for (const f of files)
      for (const m of readFileSync(path.join(ROOT, "src", f), "utf8").matchAll(/"(PB_ERR_[A-Z0-9_]*[A-Z0-9])"/g))
        used.add(m[1]);
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((c) => !Object.hasOwn(CATALOGUE, c))).toEqual([]);
  });
});
