/**
 * Presentation: tables for humans, one JSON document for --json, and errors with their code,
 * message and hint. Every line passes through the scrubber; stack traces only with --verbose.
 */
import { toWire, type WireError } from "../errors.js";
import type { BootReport, InstanceReport } from "../host/api.js";
import type { Scrubber } from "../secrets.js";
import { relativePaths, shownPath } from "./stack.js";

export interface Output {
  out(text: string): void;
  err(text: string): void;
  scrubber: Scrubber;
  verbose: boolean;
  /** Writes a call's result unchanged: results are the plugin's data and are never scrubbed. */
  result?(text: string): void;
}

/**
 * Aligned columns. A cell may hold several lines (a multi-line error in NOTE): the row grows
 * downwards, each column keeping its place, so nothing is cut to its first line.
 */
export function table(rows: string[][], indent = "  "): string {
  const split = rows.map((r) => r.map((cell) => (cell ?? "").split("\n")));
  const widths = rows[0].map((_, c) => Math.max(...split.map((r) => Math.max(...(r[c] ?? [""]).map((l) => l.length)))));
  const out: string[] = [];
  for (const r of split) {
    const height = Math.max(...r.map((lines) => lines.length));
    for (let h = 0; h < height; h++) {
      out.push(
        (
          indent +
          r.map((lines, c) => (c === r.length - 1 ? (lines[h] ?? "") : (lines[h] ?? "").padEnd(widths[c]))).join("  ")
        ).trimEnd(),
      );
    }
  }
  return out.join("\n");
}

export function renderReport(report: BootReport): string {
  const rows = [["INSTANCE", "PLUGIN", "STATE", "HEALTH", "NOTE"]];
  for (const i of report.instances)
    rows.push([i.id, `${i.plugin}@${i.version}`, i.state, i.healthMs === null ? "-" : `${i.healthMs} ms`, note(i)]);
  const lines = [`config: ${report.configFile ?? "(object)"}`, table(rows)];
  const counts = countStates(report.instances);
  lines.push(
    `${report.ok ? "ok" : "FAILED"}: ${Object.entries(counts)
      .map(([s, n]) => `${n} ${s}`)
      .join(", ")}`,
  );
  for (const w of report.warnings) lines.push(`warning ${w.code}: ${w.message}`);
  return lines.join("\n");
}

function note(i: InstanceReport): string {
  const parts: string[] = [];
  if (i.aliases.length) parts.push(`aliases: ${i.aliases.join(", ")}`);
  if (!i.required) parts.push("optional");
  if (i.isolation === "process") parts.push("process-isolated");
  if (i.isolation === "host") parts.push("on the host's thread");
  if (i.error) parts.push(`${i.error.code}: ${i.error.message}`);
  return parts.join("; ");
}

function countStates(instances: InstanceReport[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const i of instances) counts[i.state] = (counts[i.state] ?? 0) + 1;
  return counts;
}

export function renderError(err: unknown, verbose: boolean): string {
  const wire: WireError = toWire(err);
  const lines = [`error ${wire.code}: ${relativePaths(wire.message)}`];
  const issues = wire.data.issues as { pointer?: string; field?: string; message: string }[] | undefined;
  if (Array.isArray(issues) && !wire.message.includes(issues[0]?.message ?? "\u0000")) {
    for (const i of issues) lines.push(`  ${i.pointer ?? i.field ?? ""}: ${i.message}`);
  }
  if (typeof wire.data.file === "string") {
    const at =
      typeof wire.data.line === "number"
        ? `:${wire.data.line}${typeof wire.data.column === "number" ? `:${wire.data.column}` : ""}`
        : "";
    lines.push(`  file: ${shownPath(wire.data.file)}${at}`);
  }
  // A plugin's syntax error: the lines around it, the column marked (plugin-location.ts).
  if (typeof wire.data.frame === "string") lines.push(...wire.data.frame.split("\n").map((l) => `    ${l}`));
  // A boot's failures carry theirs too: each frame under the instance it belongs to.
  for (const f of Array.isArray(wire.data.failures) ? (wire.data.failures as WireError[]) : []) {
    if (typeof f.data?.frame !== "string" || typeof f.data.file !== "string") continue;
    lines.push(
      `  ${String(f.data.instance ?? "")}: ${shownPath(f.data.file)}:${String(f.data.line)}:${String(f.data.column)}`,
      ...f.data.frame.split("\n").map((l) => `    ${l}`),
    );
  }
  lines.push(`  hint: ${wire.hint}`);
  if (verbose) {
    // The plugin's own frames, mapped to its .ts; the host's stack only for Patchbay's own errors.
    const stack =
      typeof wire.data.stack === "string"
        ? wire.data.stack
        : wire.code === "PB_ERR_INTERNAL" && err instanceof Error
          ? err.stack
          : undefined;
    if (stack)
      lines.push(
        `  stack:`,
        ...relativePaths(stack)
          .split("\n")
          .map((l) => `    ${l.trim()}`),
      );
    // A boot's failures: each plugin's own stack under the instance it belongs to.
    for (const f of Array.isArray(wire.data.failures) ? (wire.data.failures as WireError[]) : [])
      if (typeof f.data?.stack === "string")
        lines.push(
          `  ${String(f.data.instance ?? "")} stack:`,
          ...relativePaths(f.data.stack)
            .split("\n")
            .map((l) => `    ${l.trim()}`),
        );
  }
  return lines.join("\n");
}

/** The --json error document; the plugin's stack only with --verbose, as in human output. */
export function errorDocument(err: unknown, verbose = false): Record<string, unknown> {
  const wire = toWire(err);
  if (!verbose && "stack" in wire.data) {
    const { stack: _stack, ...data } = wire.data;
    return { ok: false, error: { ...wire, data } };
  }
  return { ok: false, error: wire };
}
