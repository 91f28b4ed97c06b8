/**
 * The author's guide, the other docs pages and the template READMEs cannot drift from the CLI
 * or the catalogue:
 * every `patchbay ...` command they show parses with the CLI's own parser and names a command of
 * the CLI's command table, with only flags that command takes; every PB_ERR_* code mentioned in
 * any doc exists in the catalogue.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args.js";
import { usage } from "../../src/cli/main.js";
import { CATALOGUE } from "../../src/errors.js";
import { fill, placeholders, templateKinds } from "../../src/scaffold/scaffold.js";
import { ROOT } from "../helpers.js";

const GLOBAL_FLAGS = ["config", "verbose", "help"];

/** The CLI's command table, read from its own usage text: "plugin new" → flags it shows. */
function commandTable(): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>();
  for (const line of usage().split("\n")) {
    const m = /^ {2}patchbay (.+)$/.exec(line);
    if (!m) continue;
    const syntax = m[1].split(/\s{2,}/)[0];
    const words: string[] = [];
    for (const w of syntax.split(/\s+/)) {
      if (!/^[a-z][a-z-]*$/.test(w)) break;
      words.push(w);
    }
    table.set(words.join(" "), new Set([...syntax.matchAll(/--([a-z][a-z-]*)/g)].map((f) => f[1])));
  }
  return table;
}

/** Splits a shell line into words, honouring single and double quotes. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]);
  return words;
}

/** Every `patchbay ...` command in a Markdown text: lines of code blocks and inline code spans. */
function commandsIn(markdown: string): string[] {
  const found: string[] = [];
  const blocks = [...markdown.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  for (const block of blocks) {
    for (const raw of block.split("\n")) {
      const line = raw.replace(/^\$\s+/, "").replace(/\s+#\s.*$/, "").trim();
      if (/^(npx )?patchbay /.test(line)) found.push(line);
    }
  }
  const prose = markdown.replace(/^```[a-z]*\n[\s\S]*?^```/gm, "");
  for (const m of prose.matchAll(/`((?:npx )?patchbay [^`]+)`/g)) found.push(m[1]);
  return found;
}

/** Why `line` is not a real command line, or null. A synopsis's `install|uninstall` is checked as each alternative. */
function problemWith(line: string, table: Map<string, Set<string>>): string | null {
  const alternatives = /(?<=\s)([a-z-]+(?:\|[a-z-]+)+)(?=\s|$)/.exec(line);
  if (alternatives) {
    for (const alt of alternatives[1].split("|")) {
      const problem = problemWith(line.replace(alternatives[1], alt), table);
      if (problem) return problem;
    }
    return null;
  }
  // `[--dir D]` in a synopsis is the flag itself; `<kind>` is a positional.
  const words = shellWords(line.replace(/\[([^\]]+)\]/g, "$1")).filter((w) => w !== "...");
  if (words[0] === "npx") words.shift();
  if (words.shift() !== "patchbay") return "does not start with patchbay";
  let parsed;
  try {
    parsed = parseArgs(words);
  } catch (err) {
    return (err as Error).message;
  }
  if (parsed.positionals.length === 0) return parsed.flags.help === true ? null : "names no command";
  const command = [2, 1].map((n) => parsed.positionals.slice(0, n).join(" ")).find((c) => table.has(c));
  if (!command) return `no command "${parsed.positionals.slice(0, 2).join(" ")}" in the CLI's table (${[...table.keys()].join(", ")})`;
  const bad = Object.keys(parsed.flags).filter((f) => !GLOBAL_FLAGS.includes(f) && !table.get(command)!.has(f));
  return bad.length > 0 ? `patchbay ${command} does not take ${bad.map((f) => `--${f}`).join(", ")}` : null;
}

const guide = readFileSync(path.join(ROOT, "docs", "plugin-authoring.md"), "utf8");

describe("docs/plugin-authoring.md", () => {
  const table = commandTable();

  it("reads a command table with the plugin commands in it", () => {
    expect([...table.keys()]).toEqual(expect.arrayContaining(["boot", "call", "plugin new", "plugin test"]));
    expect(table.get("plugin new")).toEqual(new Set(["dir", "json"]));
  });

  it("shows only real commands, with flags those commands take", () => {
    const commands = commandsIn(guide);
    expect(commands.length).toBeGreaterThan(5);
    for (const c of ["plugin new", "plugin test", "boot"]) expect(commands.some((l) => l.includes(`patchbay ${c}`)), c).toBe(true);
    for (const line of commands) expect(problemWith(line, table), line).toBeNull();
  });

  it("would catch a command that does not exist, or a flag the command does not take", () => {
    expect(problemWith("npx patchbay plugin create mcp x", table)).toMatch(/no command/);
    expect(problemWith("patchbay plugin new mcp x --force", table)).toMatch(/does not take --force/);
    expect(problemWith("patchbay boot --jsn", table)).toMatch(/Unknown flag/);
    expect(problemWith("patchbay plugin new|test x", table)).toBeNull();
    expect(problemWith("patchbay plugin new|create x", table)).toMatch(/no command "plugin create"/);
    expect(commandsIn("```sh\n$ npx patchbay boot  # comment\n```\nand `patchbay list --json`.")).toEqual(["npx patchbay boot", "patchbay list --json"]);
  });

  it("covers the boundary rules a plugin lives under", () => {
    for (const topic of ["### What the worker can see", "### Deadlines", "### Cancellation", "### Logging", "### Secrets"]) expect(guide, topic).toContain(topic);
  });
});

describe("every other page in docs/", () => {
  it("shows only real commands", () => {
    const table = commandTable();
    for (const file of readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md") && f !== "plugin-authoring.md")) {
      for (const line of commandsIn(readFileSync(path.join(ROOT, "docs", file), "utf8"))) expect(problemWith(line, table), `docs/${file}: ${line}`).toBeNull();
    }
  });
});

describe("template READMEs", () => {
  it("show only real commands once scaffolded", () => {
    const table = commandTable();
    for (const kind of templateKinds()) {
      const file = path.join(ROOT, "templates", kind, "README.md");
      expect(existsSync(file), file).toBe(true);
      const text = fill(readFileSync(file, "utf8"), placeholders(kind, `my-${kind}`, path.join(ROOT, "plugins", `my-${kind}`)));
      for (const line of commandsIn(text)) expect(problemWith(line, table), `${kind}: ${line}`).toBeNull();
    }
  });
});

describe("PB_ERR codes in the docs", () => {
  it("all exist in the catalogue", () => {
    const docs = [
      path.join(ROOT, "README.md"),
      ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => path.join(ROOT, "docs", f)),
      ...templateKinds().map((k) => path.join(ROOT, "templates", k, "README.md")),
    ];
    let seen = 0;
    for (const file of docs) {
      for (const m of readFileSync(file, "utf8").matchAll(/PB_ERR_[A-Z0-9_]*[A-Z0-9]/g)) {
        seen++;
        expect(Object.hasOwn(CATALOGUE, m[0]), `${path.relative(ROOT, file)} mentions ${m[0]}, which the catalogue does not have`).toBe(true);
      }
    }
    expect(seen).toBeGreaterThan(20);
  });
});
