/**
 * `patchbay list`: the discovered plugins (kind, version, folder, capabilities, what they
 * shadow) and the configured instances with what host.capabilities() would report, without
 * starting anything. `--live` boots every instance (never failing on an unhealthy one), fills in
 * health, MCP tools and agents from the running instances, and shuts down.
 */
import { EXIT, type ExitCode } from "../../errors.js";
import { createHost } from "../../host/host.js";
import { inspect, listing, type InstanceListing } from "../../host/inspect.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import { table, type Output } from "../render.js";

export async function listCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "list", ["json", "live"]);
  const inspection = await inspect({ config: flagString(args, "config") });
  io.scrubber.absorb(inspection.scrubber);
  const doc = listing(inspection);
  if (args.flags.live) await fillLive(doc.instances, flagString(args, "config"), io);
  // Two configured plugins with one name are an error (SPEC), not just a line in the listing.
  const exit = doc.problems.some((p) => p.code === "PB_ERR_PLUGIN_DUPLICATE") ? EXIT.USAGE : EXIT.OK;
  if (args.flags.json) {
    io.out(JSON.stringify(doc, null, 2));
    return exit;
  }
  io.out(`config: ${doc.configFile ?? "(object)"}\n\nplugins:`);
  io.out(
    table([
      ["NAME", "KIND", "VERSION", "CAPABILITIES", "FOLDER"],
      ...doc.plugins.map((p) => [
        p.name,
        p.kind,
        p.version,
        p.capabilities.join(",") || "-",
        `${p.folder}${p.bundled ? " (bundled)" : ""}${p.shadows ? ` (shadows bundled ${p.shadows})` : ""}`,
      ]),
    ]),
  );
  io.out("\ninstances:");
  io.out(
    table([
      ["INSTANCE", "PLUGIN", "STATE", "REQUIRED", "NOTE"],
      ...doc.instances.map((i) => [
        i.id,
        i.capabilities.plugin ?? i.plugin,
        i.capabilities.state,
        i.required ? "yes" : "no",
        [
          i.aliases.length ? `aliases: ${i.aliases.join(", ")}` : "",
          i.capabilities.modes ? `modes: ${i.capabilities.modes.join(",")}` : "",
          i.allowed_tools ? `allowed_tools: ${i.allowed_tools.join(",") || "(none)"}` : "",
          i.capabilities.tools ? `tools: ${i.capabilities.tools.map((t) => t.name).join(",") || "(none)"}` : "",
          i.capabilities.allowedToolsNotOffered
            ? `not offered: ${i.capabilities.allowedToolsNotOffered.map((n) => (n.suggestion ? `${n.name} (did you mean ${n.suggestion}?)` : n.name)).join(", ")}`
            : "",
          i.capabilities.agents ? `agents: ${i.capabilities.agents.join(",") || "(none)"}` : "",
          i.error
            ? `${i.error.code}: ${i.error.message}`
            : i.capabilities.error
              ? `${i.capabilities.error.code}: ${i.capabilities.error.message}`
              : "",
        ]
          .filter(Boolean)
          .join("; "),
      ]),
    ]),
  );
  for (const p of doc.problems) io.out(`problem ${p.code}: ${p.message}`);
  return exit;
}

async function fillLive(instances: InstanceListing[], config: string | undefined, io: Output): Promise<void> {
  const host = await createHost({ config, collect: true, logLevel: io.verbose ? "debug" : "silent" });
  io.scrubber.absorb(host.scrubber);
  try {
    const live = new Map((await host.capabilities()).map((c) => [c.id, c]));
    for (const i of instances) i.capabilities = live.get(i.id) ?? i.capabilities;
  } finally {
    await host.close();
  }
}
