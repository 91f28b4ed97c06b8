/**
 * `patchbay plugin new <kind> <name> [--dir D] [--json]`: scaffold a plugin folder from
 * templates/<kind>/ into D/<name> (D defaults to ./plugins, the folder connectors.json scans by
 * default) and print the three next steps.
 */
import path from "node:path";
import { EXIT, type ExitCode } from "../../errors.js";
import { scaffoldPlugin, templateKinds } from "../../scaffold/scaffold.js";
import { nextSteps, scannedDirs } from "../../scaffold/next-steps.js";
import { vitestAdvice, vitestSetup } from "../../scaffold/vitest-config.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";
import { usageError } from "../help.js";

export async function pluginNewCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "plugin new", ["dir", "json"]);
  const [kind, name, ...extra] = args.positionals;
  if (!kind || !name || extra.length > 0) {
    throw usageError("plugin new", `Kinds: ${templateKinds().join(", ")}.`);
  }
  const cwd = process.cwd();
  const result = scaffoldPlugin({ kind, name, parentDir: path.resolve(cwd, flagString(args, "dir") ?? "plugins") });
  const scanned = scannedDirs(cwd);
  const next = nextSteps(result, cwd, scanned);
  // Its tests import "patchbay/testing": say so when the project's vitest cannot resolve that yet.
  const advice = vitestAdvice(vitestSetup(scanned.base));

  if (args.flags.json) {
    io.out(
      JSON.stringify(
        {
          ok: true,
          kind: result.kind,
          name: result.name,
          section: result.section,
          dir: result.dir,
          files: result.files,
          connectors_entry: next.entry,
          plugins_dir: next.pluginsDir,
          next_steps: next.steps,
          ...(advice ? { vitest_note: advice } : {}),
        },
        null,
        2,
      ),
    );
    return EXIT.OK;
  }
  const shown = path.relative(cwd, result.dir) || ".";
  io.out(
    [
      `Created ${shown.startsWith("..") ? result.dir : shown}: plugin "${result.name}", kind ${result.kind}.`,
      ...result.files.map((f) => `  ${f}`),
      "",
      "Next steps:",
      ...next.steps.map((s, i) => `  ${i + 1}. ${s}`),
      ...(advice ? ["", `note: ${advice}`] : []),
    ].join("\n"),
  );
  return EXIT.OK;
}
