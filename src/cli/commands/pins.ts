/**
 * `patchbay pins diff [instance]` and `patchbay pins accept <instance> [name...]`: review and approve
 * what differs from connectors.lock.json. Both ask the running `patchbay serve` of this config first
 * (it holds the definitions its clients would see, and takes an accept at once); without one, they
 * boot the instances here to read their definitions.
 */
import { EXIT, fromWire, pbError, type ExitCode, type WireError } from "../../errors.js";
import { resolveConfigPath } from "../../config/source.js";
import { askServer } from "../../gateway/control.js";
import { stateDir } from "../../gateway/state-dir.js";
import { pinsOfHost, pinsReport, type PinsReport } from "../../gateway/pins/report.js";
import { revealHidden, decodeTagRun } from "../../gateway/pins/hidden-text.js";
import type { PinDiff } from "../../gateway/pins/pin-book.js";
import { createHost } from "../../host/host.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";

export async function pinsDiffCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "pins diff", ["json"]);
  if (args.positionals.length > 1)
    throw pbError(
      "PB_ERR_USAGE",
      "pins diff takes at most one instance, e.g. `patchbay pins diff mcpConnectors/github`.",
    );
  const instance = args.positionals[0] ?? null;
  const report = await ask(args, io, { op: "pins", instance }, async (config) => {
    const host = await createHost({ config, collect: true, logLevel: io.verbose ? "debug" : "silent" });
    io.scrubber.absorb(host.scrubber);
    try {
      return pinsReport(await pinsOfHost(host, true), instance);
    } finally {
      await host.close();
    }
  });
  const doc = report as PinsReport;
  if (args.flags.json) {
    io.out(JSON.stringify(doc, null, 2));
    return doc.diffs.length > 0 ? EXIT.UNHEALTHY : EXIT.OK;
  }
  if (doc.diffs.length === 0) {
    io.out(
      `Every definition${instance ? ` of ${instance}` : ""} is as pinned in ${doc.file ?? "memory"} (pinning ${doc.mode}).`,
    );
    return EXIT.OK;
  }
  for (const d of doc.diffs) io.out(renderDiff(d));
  io.out(
    `\n${doc.diffs.length} definition(s) differ from ${doc.file ?? "the pins"}. Approve with \`patchbay pins accept <instance> [name...]\`.`,
  );
  return EXIT.UNHEALTHY;
}

export async function pinsAcceptCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "pins accept", ["json", "allow-hidden-text"]);
  const [instance, ...names] = args.positionals;
  if (!instance)
    throw pbError("PB_ERR_USAGE", "pins accept needs an instance, e.g. `patchbay pins accept mcpConnectors/github`.");
  const allowHiddenText = args.flags["allow-hidden-text"] === true;
  const result = (await ask(args, io, { op: "pins-accept", instance, names, allowHiddenText }, async (config) => {
    const host = await createHost({ config, collect: true, logLevel: io.verbose ? "debug" : "silent" });
    io.scrubber.absorb(host.scrubber);
    try {
      return (await pinsOfHost(host, false)).accept(instance, names, { allowHiddenText });
    } finally {
      await host.close();
    }
  })) as { accepted: string[]; refused: { name: string; why: string }[] };
  if (args.flags.json) {
    io.out(JSON.stringify(result, null, 2));
    return result.refused.length > 0 ? EXIT.UNHEALTHY : EXIT.OK;
  }
  io.out(
    `${instance}: pinned ${result.accepted.length} definition(s)${result.accepted.length ? `: ${result.accepted.join(", ")}` : ""}.`,
  );
  for (const r of result.refused) io.out(`  not pinned: ${r.name}: ${r.why}`);
  return result.refused.length > 0 ? EXIT.UNHEALTHY : EXIT.OK;
}

/** The running serve's answer, or `local()` when no serve runs for this config. */
async function ask(
  args: ParsedArgs,
  io: Output,
  request: Record<string, unknown>,
  local: (config: string) => Promise<unknown>,
): Promise<unknown> {
  const file = resolveConfigPath({ config: flagString(args, "config") }).file;
  const answer = await askServer(stateDir(file), request);
  if (!answer) {
    io.err(`patchbay: no \`patchbay serve\` runs for ${file}; booting its instances to read their definitions.`);
    return local(file);
  }
  if (!answer.ok) throw fromWire(answer.error as WireError);
  return answer.value;
}

function renderDiff(d: PinDiff): string {
  const lines = [
    `\n${d.instance}: ${d.list === "tools" ? "tool" : d.list === "prompts" ? "prompt" : "resource template"} "${d.name}": ${d.status} [${d.code}] (${d.mode === "enforce" ? "withheld" : "served, flagged"})`,
  ];
  if (d.status !== "drifted") {
    const desc = d.definition.description;
    if (typeof desc === "string") lines.push(`  description: ${desc}`);
    const props = (d.definition.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (props && typeof props === "object") lines.push(`  arguments: ${Object.keys(props).join(", ") || "(none)"}`);
  }
  for (const c of d.changes) {
    lines.push(`  ${c.pointer || "/"}: ${c.change}`);
    // A changed text by words; anything else as it was and as it is.
    if (c.words !== undefined) lines.push(`    ${c.words}`);
    else {
      if (c.before !== undefined) lines.push(`    - ${c.before}`);
      if (c.after !== undefined) lines.push(`    + ${c.after}`);
    }
  }
  for (const h of d.hidden.slice(0, 20)) lines.push(`  hidden ${h.kind} ${h.codePoint} at ${h.pointer}:${h.position}`);
  if (d.hidden.length > 20) lines.push(`  … and ${d.hidden.length - 20} more hidden characters`);
  const spelled = d.hidden.some((h) => h.kind === "tag") ? hiddenTagText(d) : "";
  if (spelled) lines.push(`  tag characters spell: ${JSON.stringify(spelled)}`);
  return lines.map((l) => revealHidden(l)).join("\n");
}

function hiddenTagText(d: PinDiff): string {
  return decodeTagRun(JSON.stringify(d.definition));
}
