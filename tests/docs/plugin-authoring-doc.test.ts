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
import { findCommand, COMMANDS } from "../../src/cli/commands.js";
import { CATALOGUE } from "../../src/errors.js";
import { fill, placeholders, templateKinds } from "../../src/scaffold/scaffold.js";
import { ROOT } from "../helpers.js";
import { commandsIn, problemWith } from "./_cli-lines.js";

const guide = readFileSync(path.join(ROOT, "docs", "plugin-authoring.md"), "utf8");

describe("docs/plugin-authoring.md", () => {
  it("reads a command table with the plugin commands in it", () => {
    expect(COMMANDS.map((c) => c.name)).toEqual(expect.arrayContaining(["boot", "call", "plugin new", "plugin test"]));
    expect(Object.keys(findCommand(["plugin", "new"])!.decl.flags!).sort()).toEqual(["dir", "json"]);
  });

  it("shows only real commands, with flags those commands take", () => {
    const commands = commandsIn(guide);
    expect(commands.length).toBeGreaterThan(5);
    for (const c of ["plugin new", "plugin test", "boot"])
      expect(
        commands.some((l) => l.includes(`patchbay ${c}`)),
        c,
      ).toBe(true);
    for (const line of commands) expect(problemWith(line), line).toBeNull();
  });

  it("would catch a command that does not exist, or a flag the command does not take", () => {
    expect(problemWith("npx patchbay plugin create mcp x")).toMatch(/no command "plugin create"/);
    expect(problemWith("patchbay plugin new mcp x --force")).toMatch(/does not take --force/);
    expect(problemWith("patchbay boot --jsn")).toMatch(/does not take --jsn. Did you mean --json/);
    expect(problemWith("patchbay plugin new mcp x --dir")).toMatch(/--dir needs a value/);
    expect(problemWith("patchbay list --live")).toBeNull();
    expect(problemWith("patchbay boot --live")).toMatch(/does not take --live/);
    expect(problemWith("patchbay plugin new|test x")).toBeNull();
    expect(problemWith("patchbay plugin new|create x")).toMatch(/no command "plugin create"/);
    expect(commandsIn("```sh\n$ npx patchbay boot  # comment\n```\nand `patchbay list --json`.")).toEqual([
      "npx patchbay boot",
      "patchbay list --json",
    ]);
  });

  it("covers the boundary rules a plugin lives under", () => {
    for (const topic of [
      "### What the worker can see",
      "### Deadlines",
      "### Cancellation",
      "### Logging",
      "### Secrets",
    ])
      expect(guide, topic).toContain(topic);
  });
});

describe("every other page in docs/", () => {
  it("shows only real commands", () => {
    for (const file of readdirSync(path.join(ROOT, "docs")).filter(
      (f) => f.endsWith(".md") && f !== "plugin-authoring.md",
    )) {
      for (const line of commandsIn(readFileSync(path.join(ROOT, "docs", file), "utf8")))
        expect(problemWith(line), `docs/${file}: ${line}`).toBeNull();
    }
  });
});

describe("template READMEs", () => {
  it("show only real commands once scaffolded", () => {
    for (const kind of templateKinds()) {
      const file = path.join(ROOT, "templates", kind, "README.md");
      expect(existsSync(file), file).toBe(true);
      const text = fill(
        readFileSync(file, "utf8"),
        placeholders(kind, `my-${kind}`, path.join(ROOT, "plugins", `my-${kind}`)),
      );
      for (const line of commandsIn(text)) expect(problemWith(line), `${kind}: ${line}`).toBeNull();
    }
  });
});

describe("PB_ERR codes in the docs", () => {
  it("all exist in the catalogue", () => {
    const docs = [
      path.join(ROOT, "README.md"),
      ...readdirSync(path.join(ROOT, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => path.join(ROOT, "docs", f)),
      ...templateKinds().map((k) => path.join(ROOT, "templates", k, "README.md")),
    ];
    let seen = 0;
    for (const file of docs) {
      for (const m of readFileSync(file, "utf8").matchAll(/PB_ERR_[A-Z0-9_]*[A-Z0-9]/g)) {
        seen++;
        expect(
          Object.hasOwn(CATALOGUE, m[0]),
          `${path.relative(ROOT, file)} mentions ${m[0]}, which the catalogue does not have`,
        ).toBe(true);
      }
    }
    expect(seen).toBeGreaterThan(20);
  });
});
