/**
 * docs/connectors-json.md documents exactly the keys the connectors.json zod schema accepts (no
 * more, none missing), and every JSON example on the page is a file the real loader accepts.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfigValue } from "../../src/config/load.js";
import { allowedKeysAt } from "../../src/config/schema.js";
import { ROOT, tempDir, cleanupTempDirs } from "../helpers.js";
import { afterAll } from "vitest";

afterAll(cleanupTempDirs);

const page = readFileSync(path.join(ROOT, "docs", "connectors-json.md"), "utf8");

/** The `### \`key\`` headings under the `## ` section whose title is `title`. */
function keysUnder(title: string): string[] {
  const start = page.indexOf(`\n## ${title}\n`);
  expect(start, `docs/connectors-json.md has no "## ${title}" section`).toBeGreaterThan(-1);
  const section = page.slice(start + 1).split(/\n## /)[0];
  return [...section.matchAll(/^### `([^`]+)`$/gm)].map((m) => m[1]);
}

const sorted = (keys: readonly string[]) => [...keys].sort();

describe("docs/connectors-json.md", () => {
  const instanceKeys = allowedKeysAt(["memoryStores", "x"]);

  it("documents exactly the top-level keys", () => {
    expect(sorted(keysUnder("Top-level keys"))).toEqual(sorted(allowedKeysAt([])));
  });

  it("documents exactly the defaults keys", () => {
    expect(sorted(keysUnder("`defaults` keys"))).toEqual(sorted(allowedKeysAt(["defaults"])));
  });

  it("documents exactly the instance keys of every section", () => {
    expect(sorted(keysUnder("Instance keys"))).toEqual(sorted(instanceKeys));
  });

  it("documents exactly the keys only mcp instances take", () => {
    const mcpOnly = allowedKeysAt(["mcpConnectors", "x"]).filter((k) => !instanceKeys.includes(k));
    expect(mcpOnly.length).toBeGreaterThan(0);
    expect(sorted(keysUnder("MCP-only instance keys"))).toEqual(sorted(mcpOnly));
  });

  it("shows only examples the loader accepts", () => {
    const examples = [...page.matchAll(/^```json\n([\s\S]*?)^```/gm)].map((m) => m[1]);
    expect(examples.length).toBeGreaterThan(15);
    const dir = tempDir();
    for (const text of examples) {
      const raw = JSON.parse(text) as unknown;
      // Every ${VAR} an example uses is set, so what is checked is the example's shape.
      const env = Object.fromEntries([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => [m[1], "x"]));
      expect(() => resolveConfigValue(raw, { file: null, dir, env }), text).not.toThrow();
    }
  });

  it("would catch an unknown key in an example", () => {
    expect(() =>
      resolveConfigValue(
        { mcpConnectors: { a: { plugin: "p", allowed_tool: [] } } },
        { file: null, dir: ROOT, env: {} },
      ),
    ).toThrow(/allowed_tools/);
  });
});
