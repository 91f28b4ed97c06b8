/**
 * V8 compiles a function with TurboFan once it has run long enough: a budget of bytecode on Node 20
 * (V8 11, `--interrupt-budget`, 66 KiB), 3,000 calls on Node 22 (V8 12, whose Maglev Node leaves
 * off). A call through the gateway runs a long path (HTTP, MCP, the host's checks, the instance's
 * thread) whose functions each run little of it, so at the defaults they stay in the interpreter
 * for the first few thousand calls: a team's gateway serving a few calls a minute spends its day
 * there. Once the serve is up, the threshold is a sixteenth, and that path is compiled within a
 * few hundred calls. Not before: at the boot it would compile what runs once (measured: a cold
 * start ~25% slower with it set from the start). Node 24 (V8 13) is left as it is: Maglev compiles
 * that path within ~200 calls by itself, and a TurboFan count lowered at run time did not hold
 * there reliably (a test function reached TurboFan by 2,500 calls in 2 of 5 runs). Nor is a V8
 * this does not know, which would print an error for a flag it lacks.
 * The flags are the process's, so the instances' threads, started before or after, read them too.
 */
import v8 from "node:v8";

/** The flags for this process's V8 (`major` its major version), or none. */
export function tierUpFlags(major = Number(process.versions.v8.split(".")[0])): string[] {
  if (major === 11) return ["--interrupt-budget=4096"];
  if (major === 12) return ["--invocation-count-for-turbofan=188"];
  return [];
}

/** `PATCHBAY_TIER_UP=default` keeps V8's own thresholds (for comparing, or a V8 that misbehaves with these). */
export function tierUpSooner(env: NodeJS.ProcessEnv = process.env): void {
  if (env.PATCHBAY_TIER_UP === "default") return;
  for (const flag of tierUpFlags()) v8.setFlagsFromString(flag);
}
