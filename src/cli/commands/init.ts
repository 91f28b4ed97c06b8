/**
 * `patchbay init [--config F] [--json]`: a starter connectors.json and an empty plugins folder, in
 * a folder that has neither, and a vitest config and a root tsconfig.json mapping "patchbay/*" when
 * the folder has none (an existing one is left alone, and the user told what to add). The starter
 * uses only bundled plugins whose substrate is a local file, so `patchbay boot` is healthy right
 * after, with no environment and no service.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { EXIT, pbError, type ExitCode } from "../../errors.js";
import { packageRoot } from "../../paths.js";
import { ensureVitestConfig, vitestAdvice } from "../../scaffold/vitest-config.js";
import { ensureRootTsconfig, tsconfigAdvice } from "../../scaffold/root-tsconfig.js";
import { flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";

function starter(schema: string): Record<string, unknown> {
  return {
    $schema: schema,
    _comment:
      "Written by `patchbay init`. Each section holds named instances of a plugin; `patchbay list` shows the plugins you can use, `patchbay plugin new <kind> <name>` makes your own in ./plugins.",
    plugins: ["./plugins"],
    memoryStores: { primary: { plugin: "sqlite-memory", config: { path: "${PATCHBAY_HOME:-.patchbay}/memory.db" } } },
    agentConnectors: {
      primary: { plugin: "file-drop-agent", config: { dir: "${PATCHBAY_HOME:-.patchbay}/outbox", agents: ["me"] } },
    },
    skillStores: { primary: { plugin: "fs-skill-store", config: { dir: "${PATCHBAY_HOME:-.patchbay}/skills" } } },
  };
}

export async function initCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  const file = path.resolve(flagString(args, "config") ?? "connectors.json");
  const dir = path.dirname(file);
  const plugins = path.join(dir, "plugins");
  const taken = [file, plugins].filter((p) => existsSync(p) && !(p === plugins && readdirSync(p).length === 0));
  if (taken.length > 0) {
    throw pbError(
      "PB_ERR_USAGE",
      `patchbay init writes only into a folder without them: ${taken.join(" and ")} already exist${taken.length === 1 ? "s" : ""}. Nothing was changed.`,
      { file, existing: taken },
      "Run `patchbay doctor` to check the config you have, or run init in an empty folder (or with --config F elsewhere).",
    );
  }
  mkdirSync(plugins, { recursive: true });
  const schema = path
    .relative(dir, path.join(packageRoot(), "schemas", "connectors.schema.json"))
    .split(path.sep)
    .join("/");
  writeFileSync(file, JSON.stringify(starter(schema.startsWith(".") ? schema : `./${schema}`), null, 2) + "\n", {
    flag: "wx",
  });
  const vitest = ensureVitestConfig(dir);
  const tsconfig = ensureRootTsconfig(dir);
  const advice = [vitestAdvice(vitest), tsconfigAdvice(tsconfig)].filter((a) => a !== null);
  const next = [
    "patchbay boot          # every instance healthy",
    "patchbay list          # the plugins you can add",
    "patchbay plugin new mcp my-tools   # your own plugin in ./plugins",
  ];
  const shown = (p: string) => path.relative(process.cwd(), p) || p;
  if (args.flags.json) {
    io.out(
      JSON.stringify(
        {
          ok: true,
          file,
          plugins_dir: plugins,
          vitest_config: { state: vitest.state, file: vitest.file },
          tsconfig: {
            state: tsconfig.state,
            file: tsconfig.file,
            ...(tsconfig.state === "unmapped" ? { add_to_compiler_options: { paths: tsconfig.paths } } : {}),
          },
          next_steps: next.map((n) => n.split("#")[0].trim()),
        },
        null,
        2,
      ),
    );
  } else {
    const wrote = [
      ...(vitest.state === "written"
        ? [`${shown(vitest.file)} (vitest resolves "patchbay/testing" in plugin tests)`]
        : []),
      ...(tsconfig.state === "written" ? [`${shown(tsconfig.file)} (tsc resolves "patchbay/*" from the root)`] : []),
    ]
      .map((w) => ` and ${w}`)
      .join("");
    io.out(
      [
        `Created ${shown(file)}, ${shown(plugins)}/${wrote}.`,
        ...advice.map((a) => `note: ${a}`),
        "",
        "Next:",
        ...next.map((n) => `  ${n}`),
      ].join("\n"),
    );
  }
  return EXIT.OK;
}
