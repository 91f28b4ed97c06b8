/**
 * `patchbay adapter install|uninstall|doctor|certify|inbox`: presentation over src/adapter/. Install and
 * uninstall take several instances, continue past a failure, and exit 1 if any failed.
 */
import { EXIT, pbError, type ExitCode } from "../../errors.js";
import { certifyAdapter, type CertifyReport } from "../../adapter/certify/certify.js";
import { adapterDoctor } from "../../adapter/doctor.js";
import { inboxPath } from "../../adapter/hook-decide.js";
import {
  installAdapter,
  uninstallAdapter,
  type InstallReport,
  type UninstallReport,
} from "../../adapter/install/index.js";
import { resolveAdapterInstance } from "../../adapter/session.js";
import { openInboxStore } from "../../adapter-sdk/inbox.js";
import { renderPeerMessage } from "../../adapter-sdk/render.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";

function instancesOf(args: ParsedArgs, command: string): string[] {
  if (args.positionals.length === 0)
    throw pbError(
      "PB_ERR_USAGE",
      `Usage: patchbay adapter ${command} <adapter> [<adapter> ...]${command.includes("install") ? " [--dry-run] [--json]" : " [--json]"}`,
      {},
    );
  return args.positionals;
}

export async function adapterInstallCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "adapter install", ["json", "dry-run", "trust-hooks"]);
  const reports: InstallReport[] = [];
  for (const instance of instancesOf(args, "install")) {
    reports.push(
      await installAdapter({
        config: flagString(args, "config"),
        instance,
        dryRun: args.flags["dry-run"] === true,
        trustHooks: args.flags["trust-hooks"] === true,
      }),
    );
  }
  const failed = reports.some((r) => r.status === "failed");
  if (args.flags.json) io.out(JSON.stringify({ ok: !failed, adapters: reports }, null, 2));
  else for (const r of reports) io.out(renderInstall(r));
  return failed ? EXIT.UNHEALTHY : EXIT.OK;
}

function renderInstall(r: InstallReport): string {
  const client = r.client
    ? r.client.present
      ? ` (client ${r.client.version ?? "version unknown"} at ${r.client.path})`
      : ""
    : "";
  const lines = [`${r.instance}: ${r.status}${client}${r.reason ? ` — ${r.reason}` : ""}`];
  for (const c of r.changes) lines.push(`  ${c.action.padEnd(9)} ${c.kind.padEnd(5)} ${c.path}`);
  for (const n of r.notes) lines.push(`  note: ${n}`);
  if (r.trust) {
    lines.push(
      `  trusted   ${r.trust.trusted.length} hook${r.trust.trusted.length === 1 ? "" : "s"} through the client` +
        (r.trust.already.length ? ` (${r.trust.already.length} already trusted)` : ""),
    );
  }
  if (r.inactive) lines.push(`  INACTIVE: ${r.inactive.reason}`, `  to activate: ${r.inactive.step}`);
  if (r.error) lines.push(`  error ${r.error.code}: ${r.error.message}`, `  hint: ${r.error.hint}`);
  if (r.status === "planned") lines.push("  (dry run: nothing was written)");
  return lines.join("\n");
}

export async function adapterUninstallCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "adapter uninstall", ["json", "dry-run"]);
  const reports: UninstallReport[] = [];
  for (const instance of instancesOf(args, "uninstall")) {
    reports.push(
      await uninstallAdapter({ config: flagString(args, "config"), instance, dryRun: args.flags["dry-run"] === true }),
    );
  }
  const failed = reports.some((r) => r.trustLeft !== null);
  if (args.flags.json) {
    io.out(JSON.stringify({ ok: !failed, adapters: reports }, null, 2));
    return failed ? EXIT.UNHEALTHY : EXIT.OK;
  }
  for (const r of reports) {
    const lines = [`${r.instance}: ${r.status}`];
    for (const [label, list] of [
      ["removed", r.removed],
      ["restored", r.restored],
      ["kept", r.kept],
      ["missing", r.missing],
      ["unchanged", r.unchanged],
    ] as const) {
      for (const p of list)
        lines.push(`  ${label.padEnd(9)} ${p}${label === "kept" ? "  (edited since install: left for you)" : ""}`);
    }
    for (const k of r.untrusted) lines.push(`  untrusted ${k}`);
    if (r.trustLeft)
      lines.push(
        `  error ${r.trustLeft.error.code}: ${r.trustLeft.error.message}`,
        `  hint: ${r.trustLeft.error.hint}`,
      );
    if (r.status === "planned") lines.push("  (dry run: nothing was changed)");
    io.out(lines.join("\n"));
  }
  return failed ? EXIT.UNHEALTHY : EXIT.OK;
}

export async function adapterDoctorCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "adapter doctor", ["json"]);
  const report = await adapterDoctor({
    config: flagString(args, "config"),
    instances: args.positionals.length ? args.positionals : undefined,
  });
  const ok = report.checks.every((c) => c.ok);
  if (args.flags.json) io.out(JSON.stringify({ ok, ...report }, null, 2));
  else
    for (const c of report.checks) {
      io.out(`${c.ok ? "ok  " : "FAIL"} ${c.check}: ${c.detail.split("\n").join("\n       ")}`);
      // As `patchbay doctor` prints a failed check: its code, and the fix.
      if (c.error) io.out(`       ${c.error.code}\n       fix: ${c.error.hint}`);
    }
  return ok ? EXIT.OK : EXIT.UNHEALTHY;
}

/** Lists what waits for a client, or shows one message whole (and marks it delivered: a human read it). */
export async function adapterInboxCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "adapter inbox", ["json", "message"]);
  const [instance] = args.positionals;
  if (!instance) throw pbError("PB_ERR_USAGE", "Usage: patchbay adapter inbox <adapter> [--message ID] [--json]", {});
  const found = await resolveAdapterInstance({ config: flagString(args, "config"), instance });
  if (!found.standard.inbox)
    throw pbError("PB_ERR_INBOX_NOT_CONFIGURED", `${found.id} has no "inbox" in its config.`, { instance: found.id });
  const store = openInboxStore(inboxPath(found));
  const recipient = found.standard.recipient ?? found.name;
  try {
    const id = flagString(args, "message");
    if (id) {
      const m = store.get(id);
      if (!m || m.agentId !== recipient)
        throw pbError(
          "PB_ERR_INBOX_MESSAGE_NOT_FOUND",
          `No message ${JSON.stringify(id)} for ${recipient} in ${store.file}.`,
          { id },
        );
      store.markDelivered(recipient, [id], "cli");
      io.out(args.flags.json ? JSON.stringify(m, null, 2) : renderPeerMessage(m).trimEnd());
      return EXIT.OK;
    }
    const pending = store.pending(recipient, 1000);
    if (args.flags.json)
      io.out(
        JSON.stringify(
          {
            recipient,
            ...store.counts(recipient),
            messages: pending.map(({ body, ...rest }) => ({ ...rest, bytes: Buffer.byteLength(body) })),
          },
          null,
          2,
        ),
      );
    else {
      io.out(`${recipient}: ${pending.length} pending`);
      for (const m of pending) io.out(`  ${m.id}  from ${m.from}  ${m.type}  ${Buffer.byteLength(m.body)} bytes`);
    }
    return EXIT.OK;
  } finally {
    store.close();
  }
}

/** `patchbay adapter certify <adapter> --client <path-or-binary> [--dry-run] [--json]`. */
export async function adapterCertifyCommand(
  args: Pick<ParsedArgs, "positionals" | "flags">,
  io: Output,
): Promise<ExitCode> {
  allowFlags(args, "adapter certify", ["json", "dry-run", "client"]);
  const [adapter, ...extra] = args.positionals;
  const client = flagString(args, "client");
  if (!adapter || extra.length > 0 || !client)
    throw pbError(
      "PB_ERR_USAGE",
      "Usage: patchbay adapter certify <adapter> --client <path-or-binary> [--dry-run] [--json]",
      {},
    );
  const report = await certifyAdapter({
    adapter,
    client,
    config: flagString(args, "config"),
    env: process.env,
    dryRun: args.flags["dry-run"] === true,
  });
  const ok = report.entries.length > 0 && report.entries.every((e) => e.result === "pass");
  const shown = {
    ...report,
    captures: report.captures.map(({ file, event, kind, sha256 }) => ({ file, event, kind, sha256 })),
  };
  if (args.flags.json) io.out(JSON.stringify({ ok, ...shown }, null, 2));
  else io.out(renderCertify(shown));
  return ok ? EXIT.OK : EXIT.UNHEALTHY;
}

function renderCertify(r: CertifyReport): string {
  const lines = [`${r.adapter}: ${r.client} ${r.version} on ${r.platform}, ${r.captures.length} captures`];
  for (const e of r.entries) {
    lines.push(
      `  ${e.result.padEnd(4)} ${e.capability.padEnd(28)} ${e.fixture}${e.sha256 ? ` sha256:${e.sha256.slice(0, 12)}` : ""}`,
    );
    if (e.notes) lines.push(`       ${e.notes}`);
  }
  lines.push(
    r.written
      ? `  written to ${r.target}/certification.json`
      : `  (dry run: would write these entries to ${r.target}/certification.json)`,
  );
  return lines.join("\n");
}
