/**
 * `patchbay hook <adapter> [event] [--timeout-ms N]`: the command an AI client's hook runs. It
 * writes the adapter's outcome byte for byte (stdout, stderr) and exits with its code. It never
 * fails closed: every problem becomes allow (no stdout, exit 0) plus one line on stderr and in
 * <state>/hooks.log (src/adapter/hook-runner.ts).
 */
import { EXIT, type ExitCode } from "../../errors.js";
import { runHook } from "../../adapter/hook-runner.js";
import { flagString, type ParsedArgs } from "../args.js";
import type { Output } from "../render.js";
import { readStdin, write } from "../hook-stdin.js";

export async function hookCommand(args: ParsedArgs, _io: Output): Promise<ExitCode> {
  const [adapter = "", event = null] = args.positionals;
  const raw = flagString(args, "timeout-ms");
  const timeoutMs = raw !== undefined && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;
  return runAndWrite({ adapter, event, config: flagString(args, "config"), timeoutMs }, readStdin);
}

/** The full runner for a payload the fast path (src/cli/hook-fast.ts) already read, or failed to read. */
export function hookWithPayload(
  args: { adapter: string; event: string | null; config?: string; timeoutMs?: number },
  payload: string | Error,
): Promise<ExitCode> {
  return runAndWrite(args, () => (payload instanceof Error ? Promise.reject(payload) : Promise.resolve(payload)));
}

async function runAndWrite(
  args: { adapter: string; event: string | null; config?: string; timeoutMs?: number },
  readPayload: () => Promise<string>,
): Promise<ExitCode> {
  const { adapter, event, config, timeoutMs } = args;
  const result = await runHook({ adapter, event, readPayload, config, env: process.env, timeoutMs, startedAt: 0 });
  const { stdout, stderr, exitCode } = result.outcome;
  if (stdout) await write(process.stdout, stdout);
  if (stderr) await write(process.stderr, stderr);
  if (result.decision === "fail-open") {
    await write(
      process.stderr,
      `patchbay hook ${adapter || "(no adapter)"}: failed open (${result.reason}): ${result.message}${result.logFile ? `; log: ${result.logFile}` : ""}\n`,
    );
  }
  await result.finish();
  return (result.decision === "fail-open" ? EXIT.OK : exitCode) as ExitCode;
}
