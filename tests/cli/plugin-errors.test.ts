/**
 * Plugin errors point into the plugin: a syntax error names file:line:column with a code frame;
 * a throw inside a method shows, with --verbose only, the plugin's own frames mapped to its .ts
 * lines (no host frames), paths relative to the working folder, secrets scrubbed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

const SECRET = "plugin-errors-secret-93";

function project(): string {
  const cwd = tempDir("pb-plugin-errors-");
  const plugin = (name: string, source: string) => {
    mkdirSync(path.join(cwd, "plugins", name, "src"), { recursive: true });
    writeFileSync(
      path.join(cwd, "plugins", name, "plugin.json"),
      JSON.stringify({ name, version: "1.0.0", kind: "mcp", entry: "src/index.ts", patchbay: "^1" }),
    );
    writeFileSync(path.join(cwd, "plugins", name, "src", "index.ts"), source);
  };
  plugin("bad", 'import { definePlugin, z } from "patchbay/plugin";\n\nconst x = { a: 1 b: 2 };\nexport default x;\n');
  plugin(
    "thrower",
    [
      'import { definePlugin, z } from "patchbay/plugin";',
      "",
      "interface Row { rows: string[] }",
      "",
      "function pick(result: Row | undefined, token: string): string[] {",
      "  if (token) return result!.rows;",
      "  return [];",
      "}",
      "",
      "export default definePlugin({",
      '  kind: "mcp",',
      "  config: z.object({ token: z.string() }),",
      "  create(config) {",
      "    return {",
      "      async health_check() { return true; },",
      '      async list_tools() { return [{ name: "boom" }]; },',
      "      async call(_tool: string, _args: unknown) {",
      "        return pick(undefined, config.token);",
      "      },",
      "    };",
      "  },",
      "});",
      "",
    ].join("\n"),
  );
  plugin(
    "creator",
    [
      'import { definePlugin, z } from "patchbay/plugin";',
      "",
      "function open(url: string): never {",
      "  throw new Error(`cannot open client for ${url}`);",
      "}",
      "",
      'export default definePlugin({ kind: "mcp", config: z.object({}), create() { open("x://y"); } });',
      "",
    ].join("\n"),
  );
  plugin("typo", 'import { definePlugin, z } from "patchbay/plugins";\nexport default definePlugin;\n');
  writeFileSync(
    path.join(cwd, "connectors.json"),
    JSON.stringify({
      mcpConnectors: {
        b: { plugin: "bad" },
        t: { plugin: "thrower", config: { token: "${TOKEN}" } },
        typo: { plugin: "typo" },
        cr: { plugin: "creator" },
      },
    }),
  );
  return cwd;
}

describe("plugin errors", () => {
  it("a syntax error names the plugin's file:line:column and shows a code frame", async () => {
    const cwd = project();
    const r = await runCli(["call", "mcpConnectors/b", "list_tools"], { cwd, env: { TOKEN: SECRET } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("PB_ERR_PLUGIN_LOAD_FAILED");
    expect(r.stderr).toContain("failed to load src/index.ts:3:17");
    expect(r.stderr).toContain(`file: ${path.join("plugins", "bad", "src", "index.ts")}:3:17`);
    expect(r.stderr).toContain("> 3 | const x = { a: 1 b: 2 };");
    expect(r.stderr).toMatch(/\n\s+\|\s{17}\^/);
  });

  it("a mistyped patchbay/ import is named as written, with the modules Patchbay provides", async () => {
    const cwd = project();
    const r = await runCli(["call", "mcpConnectors/typo", "list_tools"], { cwd, env: { TOKEN: SECRET } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("PB_ERR_PLUGIN_LOAD_FAILED");
    expect(r.stderr).toContain(
      'Cannot find module "patchbay/plugins": Patchbay provides "patchbay/plugin", "patchbay/adapter", "patchbay/testing", "patchbay" (did you mean "patchbay/plugin"?).',
    );
    expect(r.stderr).not.toContain("index.js/plugins");
  });

  it("a throw in create() says so (not the export's hint), and boot --verbose shows its .ts frames", async () => {
    const cwd = project();
    const quiet = await runCli(["call", "mcpConnectors/cr", "list_tools"], { cwd, env: { TOKEN: SECRET } });
    expect(quiet.code).toBe(3);
    expect(quiet.stderr).toContain("create() failed: cannot open client for x://y");
    expect(quiet.stderr).toContain("hint: The plugin's create() threw while starting this instance");
    expect(quiet.stderr).not.toContain("definePlugin({...})");
    expect(quiet.stderr).not.toMatch(/\n\s+at /);
    writeFileSync(path.join(cwd, "connectors.json"), JSON.stringify({ mcpConnectors: { cr: { plugin: "creator" } } }));
    const verbose = await runCli(["boot", "--verbose"], { cwd });
    expect(verbose.code).toBe(3);
    expect(verbose.stderr).toContain("mcpConnectors/cr stack:");
    expect(verbose.stderr).toContain(`at open (${path.join("plugins", "creator", "src", "index.ts")}:4:9)`);
  });

  it("a throw shows the plugin's own .ts frames with --verbose only, relative and scrubbed", async () => {
    const cwd = project();
    const quiet = await runCli(["call", "mcpConnectors/t", "call", "boom", "{}"], { cwd, env: { TOKEN: SECRET } });
    expect(quiet.code).toBe(1);
    expect(quiet.stderr).toContain("PB_ERR_PLUGIN_THREW");
    expect(quiet.stderr).not.toMatch(/\n\s+at /);

    const verbose = await runCli(["call", "mcpConnectors/t", "call", "boom", "{}", "--verbose"], {
      cwd,
      env: { TOKEN: SECRET },
    });
    const stack = verbose.stderr.split("  stack:\n")[1] ?? "";
    // Line 6, column 28: `.rows` in `  if (token) return result!.rows;` of the .ts source, not the transpiled JS.
    expect(stack).toContain(`at pick (${path.join("plugins", "thrower", "src", "index.ts")}:6:28)`);
    expect(stack).toContain(`${path.join("plugins", "thrower", "src", "index.ts")}:18:`);
    expect(stack).not.toMatch(/dist\/|host-api|callCommand|node:internal/);
    expect(verbose.stderr).not.toContain(SECRET);
    expect(verbose.stderr).not.toContain(cwd);

    const json = await runCli(["call", "mcpConnectors/t", "call", "boom", "{}", "--json"], {
      cwd,
      env: { TOKEN: SECRET },
    });
    expect(JSON.parse(json.stdout).error.data.stack).toBeUndefined();
    const jsonVerbose = await runCli(["call", "mcpConnectors/t", "call", "boom", "{}", "--json", "--verbose"], {
      cwd,
      env: { TOKEN: SECRET },
    });
    expect(JSON.parse(jsonVerbose.stdout).error.data.stack).toContain("index.ts:6:28");
  });
});

describe("plugin test", () => {
  it("names the broken line inside the plugin, not a ../../ path through the kit's private plugins folder", async () => {
    const cwd = project();
    writeFileSync(
      path.join(cwd, "plugins", "bad", "test.config.json"),
      JSON.stringify({ config: {}, invalidConfig: null, invalidConfigReason: "no substrate" }),
    );
    const r = await runCli(["plugin", "test", "./bad"], { cwd: path.join(cwd, "plugins"), env: { TOKEN: SECRET } });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stderr).toContain("failed to load src/index.ts:3:17: SyntaxError");
    expect(r.stderr).not.toContain("../");
  });
});
