/**
 * Small helpers adapters share, so each one does not get path containment, version parsing or
 * shell quoting subtly wrong on its own: guardProtected (the `protect` policy), detectFromProbe,
 * shellQuote.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import type { ClientProbe, DetectResult, GuardDecision, NormalizedEvent } from "./contract.js";

/**
 * The real path of the deepest existing ancestor, with the missing rest appended: a write through a
 * symlinked folder is compared where it would really land, and a file that does not exist yet still
 * has a canonical place.
 */
export function canonicalPath(target: string): string {
  let head = path.resolve(target);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(head), ...rest.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const parent = path.dirname(head);
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === head) return path.join(head, ...rest.reverse());
      rest.push(path.basename(head));
      head = parent;
    }
  }
}

/** Segment-wise containment: /ws contains /ws/a, not /ws-backup/a. */
export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * Denies a write whose target lies inside a protected path. `protect` holds absolute paths (the
 * host resolves the standard `protect` config key against connectors.json); relative targets
 * resolve against the event's cwd.
 */
export function guardProtected(
  event: NormalizedEvent,
  protect: readonly string[],
  clientName = "the client",
): GuardDecision {
  if (event.targets.length === 0 || protect.length === 0) return { decision: "allow" };
  const roots = protect.map((p) => canonicalPath(p));
  for (const target of event.targets) {
    const real = canonicalPath(path.resolve(event.cwd, target));
    const hit = roots.find((root) => isInside(real, root));
    if (hit) return { decision: "deny", reason: `Patchbay protects ${hit}: ${clientName} may not write ${real}.` };
  }
  return { decision: "allow" };
}

const VERSION = /\b(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\b/;

/** The usual detect(): present when the probe found the binary, version = the first x.y.z in its output. */
export function detectFromProbe(probe: ClientProbe): DetectResult {
  if (!probe.present) {
    return {
      ok: true,
      present: false,
      version: null,
      diagnostics: [
        {
          level: "info",
          code: "client-absent",
          message: `${probe.command} was not found on PATH${probe.error ? ` (${probe.error})` : ""}.`,
        },
      ],
    };
  }
  const match = VERSION.exec(probe.output);
  if (!match) {
    return {
      ok: false,
      present: true,
      version: null,
      diagnostics: [
        {
          level: "warn",
          code: "version-unknown",
          message: `${probe.command} ${probe.error ? `failed (${probe.error})` : "printed no x.y.z version"}; every capability counts as uncertified.`,
        },
      ],
    };
  }
  return { ok: true, present: true, version: match[1], diagnostics: [] };
}

/** POSIX single-quote quoting: safe for any path in a command line the client hands to /bin/sh. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}
