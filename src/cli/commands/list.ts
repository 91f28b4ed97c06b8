/**
 * `patchbay list`: the discovered plugins (kind, version, folder, capabilities, what they
 * shadow) and the configured instances, without starting anything.
 */
import { EXIT, type ExitCode } from "../../errors.js";
import { inspect, listing } from "../../inspect.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import { table, type Output } from "../render.js";

export async function listCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "list", ["json"]);
  const inspection = await inspect({ config: flagString(args, "config") });
  io.scrubber.absorb(inspection.scrubber);
  const doc = listing(inspection);
  if (args.flags.json) {
    io.out(JSON.stringify(doc, null, 2));
    return EXIT.OK;
  }
  io.out(`config: ${doc.configFile ?? "(object)"}\n\nplugins:`);
  io.out(table([["NAME", "KIND", "VERSION", "CAPABILITIES", "FOLDER"], ...doc.plugins.map((p) => [
    p.name, p.kind, p.version, p.capabilities.join(",") || "-",
    `${p.folder}${p.bundled ? " (bundled)" : ""}${p.shadows ? ` (shadows bundled ${p.shadows})` : ""}`,
  ])]));
  io.out("\ninstances:");
  io.out(table([["INSTANCE", "PLUGIN", "REQUIRED", "NOTE"], ...doc.instances.map((i) => [
    i.id, i.plugin, i.required ? "yes" : "no",
    [i.aliases.length ? `aliases: ${i.aliases.join(", ")}` : "", i.allowed_tools ? `allowed_tools: ${i.allowed_tools.join(",") || "(none)"}` : "", i.error ? `${i.error.code}: ${i.error.message}` : ""].filter(Boolean).join("; "),
  ])]));
  for (const p of doc.problems) io.out(`problem ${p.code}: ${p.message}`);
  return EXIT.OK;
}
