/**
 * How a failed boot is told: one error listing every failure, whose exit code is the most basic
 * cause among them (config before plugin load before health).
 */
import { EXIT, PatchbayError, type WireError } from "../errors.js";
import type { Scrubber } from "../secrets.js";
import type { BootReport } from "./types.js";

/** The boot's one error listing every failure, or null when the boot succeeded. */
export function bootFailure(report: BootReport): PatchbayError | null {
  const failures = [...report.problems, ...report.instances.filter((i) => i.required && i.error).map((i) => i.error!)];
  return failures.length > 0 ? bootError(failures, null) : null;
}

/** One error listing every failure; its exit code is the most basic cause (config before load before health). */
export function bootError(failures: WireError[], scrubber: Scrubber | null): PatchbayError {
  const scrub = <T>(v: T): T => (scrubber ? scrubber.scrubValue(v) : v);
  const exits = failures.map((f) => (f.data.exit as number | undefined) ?? exitOf(f));
  const exit = exits.includes(EXIT.USAGE)
    ? EXIT.USAGE
    : exits.includes(EXIT.PLUGIN_LOAD)
      ? EXIT.PLUGIN_LOAD
      : EXIT.UNHEALTHY;
  const lines = failures.map(
    (f) => `  - ${f.data.instance ? `${String(f.data.instance)}: ` : ""}[${f.code}] ${f.message}`,
  );
  return new PatchbayError(
    "PB_ERR_BOOT_FAILED",
    scrub(`Boot failed: ${failures.length} problem${failures.length === 1 ? "" : "s"}:\n${lines.join("\n")}`),
    scrub({ failures, exit }),
  );
}

function exitOf(f: WireError): number {
  return new PatchbayError(f.code, f.message).exitCode;
}
