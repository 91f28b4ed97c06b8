/**
 * The CLI declared once per command (src/cli/commands.ts): generated, aligned help per command;
 * flags refused by every command that does not declare them; "did you mean" for commands and
 * flags; `help` as a command; `init`; and --version/--help that load no command, host or zod.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/commands.js";
import { cleanupTempDirs, refuseModules, ROOT, runCli, tempDir } from "../helpers.js";

afterAll(cleanupTempDirs);

describe("help", () => {
  it("lists every declared command, and `patchbay help` is a command", async () => {
    const top = await runCli(["--help"], { cwd: tempDir() });
    expect(top.code).toBe(0);
    for (const c of COMMANDS) expect(top.stdout, c.name).toContain(`patchbay ${c.name}`);
    const viaHelp = await runCli(["help"], { cwd: tempDir() });
    expect(viaHelp.stdout).toBe(top.stdout);
  });

  it("shows one command's flags aligned in one column, its examples, and for plugin new the kinds", async () => {
    const r = await runCli(["help", "plugin", "new"], { cwd: tempDir() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: patchbay plugin new <kind> <name> [--dir D] [--json]");
    expect(r.stdout).toMatch(/Kinds: .*memory-store.*mcp.*adapter/);
    expect(r.stdout).toContain("Examples:\n  patchbay plugin new mcp github-issues");
    const options = r.stdout.split("Options:\n")[1].split("\n\n")[0].split("\n");
    expect(options.length).toBeGreaterThanOrEqual(5);
    const column = (line: string) =>
      line.search(/\S\s{2,}\S/) + line.slice(line.search(/\S\s{2,}\S/)).search(/\s\S/) + 1;
    expect(new Set(options.map(column)).size, options.join("\n")).toBe(1);
    expect((await runCli(["plugin", "new", "--help"], { cwd: tempDir() })).stdout).toBe(r.stdout);
  });
});

describe("per-command flags", () => {
  it("a flag is refused by a command that does not declare it, with the closest flag it does take", async () => {
    const cwd = tempDir();
    for (const [args, expected] of [
      [["boot", "--live"], "patchbay boot does not take --live"],
      [["list", "--jsn"], "Did you mean --json?"],
      [["doctor", "--timeout", "5"], "patchbay doctor does not take --timeout"],
      [["plugin", "test", "x", "--force"], "patchbay plugin test does not take --force"],
      [["plugin", "new", "mcp", "x", "--dir"], "--dir needs a value: --dir D"],
      [["boot", "--json=yes"], "--json takes no value"],
    ] as const) {
      const r = await runCli([...args], { cwd });
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(expected);
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("suggests the command meant for a typo, in a group too", async () => {
    const cwd = tempDir();
    const bot = await runCli(["bot"], { cwd });
    expect(bot.code).toBe(2);
    expect(bot.stderr).toContain('Did you mean "patchbay boot"?');
    const nwe = await runCli(["plugin", "nwe", "mcp", "x"], { cwd });
    expect(nwe.code).toBe(2);
    expect(nwe.stderr).toContain('Did you mean "patchbay plugin new"?');
  });
});

describe("patchbay init", () => {
  it("writes a starter that boots healthy, and refuses to run twice", async () => {
    const cwd = tempDir("pb-init-");
    const r = await runCli(["init"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(cwd, "plugins"))).toBe(true);
    const config = JSON.parse(readFileSync(path.join(cwd, "connectors.json"), "utf8"));
    expect(existsSync(path.resolve(cwd, config.$schema))).toBe(true);
    // Plugin tests import "patchbay/testing"; the package is patchbay-host, so vitest gets the alias.
    expect(readFileSync(path.join(cwd, "vitest.config.mjs"), "utf8")).toContain('replacement: "patchbay-host/$1"');
    const boot = await runCli(["boot", "--json"], { cwd });
    expect(boot.code, boot.stdout + boot.stderr).toBe(0);
    expect(JSON.parse(boot.stdout).instances.length).toBeGreaterThanOrEqual(3);

    const before = readFileSync(path.join(cwd, "connectors.json"), "utf8");
    const again = await runCli(["init"], { cwd });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("already exist");
    expect(readFileSync(path.join(cwd, "connectors.json"), "utf8")).toBe(before);
  });

  it("writes a root tsconfig.json whose paths let tsc resolve patchbay/* in every plugin from the root", async () => {
    const cwd = tempDir("pb-init-tsc-");
    const r = await runCli(["init", "--json"], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).tsconfig).toEqual({ state: "written", file: path.join(cwd, "tsconfig.json") });
    for (const [kind, name] of [
      ["mcp", "my-tools"],
      ["adapter", "my-client"],
    ]) {
      const made = await runCli(["plugin", "new", kind, name], { cwd });
      expect(made.code, made.stderr).toBe(0);
    }
    // The project has no node_modules: this proof borrows the repository's @types for "types": ["node"].
    writeFileSync(
      path.join(cwd, "tsconfig.proof.json"),
      JSON.stringify({
        extends: "./tsconfig.json",
        compilerOptions: { typeRoots: [path.join(ROOT, "node_modules", "@types")], skipLibCheck: false },
      }),
    );
    const tsc = spawnSync(
      process.execPath,
      [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.proof.json"],
      {
        cwd,
        encoding: "utf8",
      },
    );
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
    // And it can fail: a name the paths do not map is TS2307.
    writeFileSync(
      path.join(cwd, "plugins", "my-tools", "src", "extra.ts"),
      'export type { Nothing } from "patchbay/nothing";\n',
    );
    const bad = spawnSync(
      process.execPath,
      [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.proof.json"],
      {
        cwd,
        encoding: "utf8",
      },
    );
    expect(bad.stdout).toContain("TS2307");
  });

  it("leaves an existing tsconfig.json alone and says exactly what to add", async () => {
    const cwd = tempDir("pb-init-tsc-");
    const mine = '{ "compilerOptions": { "strict": true }, "include": ["src"] }\n';
    writeFileSync(path.join(cwd, "tsconfig.json"), mine);
    const human = await runCli(["init"], { cwd });
    expect(human.code, human.stderr).toBe(0);
    expect(readFileSync(path.join(cwd, "tsconfig.json"), "utf8")).toBe(mine);
    expect(human.stdout).toContain("tsconfig.json exists and was left alone");
    expect(human.stdout).toContain('"patchbay/testing": [');
    expect(human.stdout).toMatch(/dist\/adapter-sdk\/index\.d\.ts/);

    const again = tempDir("pb-init-tsc-");
    writeFileSync(path.join(again, "tsconfig.json"), mine);
    const json = JSON.parse((await runCli(["init", "--json"], { cwd: again })).stdout);
    expect(json.tsconfig.state).toBe("unmapped");
    const paths = json.tsconfig.add_to_compiler_options.paths as Record<string, string[]>;
    expect(Object.keys(paths).sort()).toEqual(["patchbay/adapter", "patchbay/plugin", "patchbay/testing"]);
    for (const [to] of Object.values(paths)) expect(existsSync(path.resolve(again, to)), to).toBe(true);
  });

  it("refuses a folder whose plugins/ already holds something", async () => {
    const cwd = tempDir("pb-init-");
    mkdirSync(path.join(cwd, "plugins", "mine"), { recursive: true });
    writeFileSync(path.join(cwd, "plugins", "mine", "x"), "");
    const r = await runCli(["init", "--json"], { cwd });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe("PB_ERR_USAGE");
    expect(existsSync(path.join(cwd, "connectors.json"))).toBe(false);
  });
});

/** The host, zod, jiti, pino, tinypool, the MCP SDK and every command: what --version and --help must not load. */
const HEAVY =
  /node_modules\/(zod|jiti|pino|tinypool|@modelcontextprotocol)\/|\/dist\/(host|inspect|index)\.js$|\/dist\/cli\/commands\//;

function runGuarded(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return runCli(args, { cwd: tempDir("pb-guard-"), nodeArgs: refuseModules(HEAVY) });
}

describe("start-up", () => {
  it("--version and --help load no command, no host and no zod (and the guard does catch one that does)", async () => {
    for (const args of [["--version"], ["--help"], ["help", "call"]]) {
      const r = await runGuarded(args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    const list = await runGuarded(["list"]);
    expect(list.code).not.toBe(0);
    expect(list.stderr).toContain("loaded ");
  });
});

describe("did you mean, for what a user types into connectors.json and plugin test", () => {
  it("names the plugin meant by a typo, the config key meant by a typo, and keeps multi-line notes whole", async () => {
    const cwd = tempDir("pb-typo-");
    writeFileSync(
      path.join(cwd, "connectors.json"),
      JSON.stringify({
        memoryStores: { m: { plugin: "sqlite-memory", config: { pth: "x.db" } } },
        agentConnectors: { a: { plugin: "noop-agnet" } },
      }),
    );
    const r = await runCli(["boot"], { cwd });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('plugin "noop-agnet" was not found. Did you mean "noop-agent"?');
    expect(r.stdout).toContain('Unrecognized key: "pth" (did you mean "path"?)');
    // The NOTE column keeps the config error's second and third lines, aligned under the first.
    const lines = r.stdout.split("\n");
    const first = lines.findIndex((l) => l.includes("PB_ERR_INSTANCE_CONFIG_INVALID"));
    const column = lines[first].indexOf("PB_ERR_INSTANCE_CONFIG_INVALID");
    expect(lines[first + 2].slice(0, column).trim()).toBe("");
    expect(lines[first + 2].slice(column)).toContain("/memoryStores/m/config: Unrecognized key");

    const test = await runCli(["plugin", "test", "sqlite-memroy"], { cwd: tempDir() });
    expect(test.code).toBe(2);
    expect(test.stderr).toContain('Did you mean "sqlite-memory"?');
  });
});
