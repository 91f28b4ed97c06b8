/**
 * `patchbay doctor`: every check boot makes, never stopping at the first problem, each failed
 * check with its fix. Exit codes as boot.
 */
import { EXIT, toWire, type ExitCode, type WireError } from "../../errors.js";
import { bootFailure, createHost, sortDiscoveryErrors } from "../../host/host.js";
import { inspect } from "../../host/inspect.js";
import { trustWarnings } from "../../registry/trust.js";
import { adapterDoctor } from "../../adapter/doctor.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";
import type { Host } from "../../host/api.js";
import { findingError } from "../../gateway/pins/pin-book.js";
import { pinsOfHost } from "../../gateway/pins/report.js";

interface Check {
  check: string;
  ok: boolean;
  warn?: boolean;
  detail: string;
  error: WireError | null;
}

export async function doctorCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "doctor", ["json"]);
  const checks: Check[] = [];
  const configPath = flagString(args, "config");
  const inspection = await inspect({ config: configPath });
  io.scrubber.absorb(inspection.scrubber);
  const { config, discovery } = inspection;
  const blocked = Object.keys(config.blocked).length;
  // A problem inside one instance's entry blocks only that instance: it is reported below with the others.
  checks.push({
    check: "connectors.json",
    ok: true,
    detail: `${config.file ?? "(object)"}: ${blocked ? `${config.instances.length} instances, ${blocked} with config problems of their own (below)` : `valid, ${config.instances.length} instances`}`,
    error: null,
  });
  for (const dir of config.pluginDirsDeclared ? discovery.missingDirs : [])
    checks.push({
      check: "plugin folder",
      ok: false,
      warn: true,
      detail: `${dir} does not exist (bundled plugins are still found)`,
      error: null,
    });
  // A plugin's own problem is a warning when no instance uses it, as boot sorts it.
  const { warnings } = sortDiscoveryErrors(discovery, config);
  checks.push({
    check: "plugins",
    ok: discovery.errors.length === 0,
    warn: discovery.errors.every((err) => warnings.includes(err)),
    detail: `${discovery.plugins.size} plugins discovered`,
    error: null,
  });
  for (const err of discovery.errors)
    checks.push({ check: "plugin", ok: false, warn: warnings.includes(err), detail: err.message, error: toWire(err) });
  for (const w of trustWarnings(config, discovery))
    checks.push({ check: `${w.instance} trust`, ok: false, warn: true, detail: w.message, error: null });

  const host = await createHost({
    config: configPath,
    collect: true,
    prettyLogs: !args.flags.json,
    logLevel: io.verbose ? "debug" : "silent",
  });
  io.scrubber.absorb(host.scrubber);
  let report;
  try {
    report = host.report();
    checks.push(...(await pinChecks(host)), ...(await allowedToolChecks(host)));
  } finally {
    await host.close();
  }
  for (const i of report.instances) {
    const detail = i.error ? `${i.state}${i.required ? "" : " (optional)"}` : `${i.state}, health ${i.healthMs} ms`;
    // A degraded optional instance does not fail the boot: it is a warning, with the same fix.
    checks.push({
      check: `${i.id} (${i.plugin}@${i.version})`,
      ok: i.error === null,
      warn: i.error !== null && !i.required,
      detail,
      error: i.error,
    });
  }
  // Adapters: the installed client's version, and declared vs effective (certified) capabilities.
  if (config.instances.some((i) => i.section === "adapters")) {
    const adapters = await adapterDoctor({ config: configPath });
    checks.push(...adapters.checks);
  }
  const failure = bootFailure(report);
  const exit = failure ? failure.exitCode : EXIT.OK;
  if (args.flags.json) {
    io.out(JSON.stringify({ ok: exit === EXIT.OK, exit, checks }, null, 2));
  } else {
    for (const c of checks) {
      io.out(`${c.ok ? "ok  " : c.warn ? "warn" : "FAIL"} ${c.check}: ${c.detail}`);
      if (c.error)
        io.out(`       ${c.error.code}: ${c.error.message.split("\n").join("\n       ")}\n       fix: ${c.error.hint}`);
    }
    io.out(exit === EXIT.OK ? "doctor: everything required is healthy." : `doctor: problems found (exit ${exit}).`);
  }
  return exit;
}

/**
 * The definitions the gateway would withhold or flag (connectors.lock.json), read from the booted
 * instances; never writes the lock. A lock that cannot be read fails: serve would not start on it.
 */
async function pinChecks(host: Host): Promise<Check[]> {
  if (!host.config?.file) return [];
  try {
    const book = await pinsOfHost(host, true);
    return book.list().map((f) => {
      const err = toWire(findingError(f));
      return { check: `${f.instance} pins`, ok: false, warn: true, detail: `${f.name}: ${f.status}`, error: err };
    });
  } catch (err) {
    const wire = toWire(err);
    return [{ check: "connectors.lock.json", ok: false, detail: wire.message, error: wire }];
  }
}

/** allowed_tools names an instance's server does not offer: a typo there silently allows nothing. */
async function allowedToolChecks(host: Host): Promise<Check[]> {
  const described = await host.capabilities();
  return described.flatMap((c) =>
    (c.allowedToolsNotOffered ?? []).map((n) => ({
      check: `${c.id} allowed_tools`,
      ok: false,
      warn: true,
      detail: `"${n.name}" is not a tool ${c.id} offers, so it allows nothing${n.suggestion ? ` (did you mean "${n.suggestion}"?)` : ""}; \`patchbay list --live\` shows the tools it allows.`,
      error: null,
    })),
  );
}
