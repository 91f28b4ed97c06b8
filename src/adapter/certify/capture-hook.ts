/**
 * The hook command `patchbay adapter certify` wires for every event the client declares: it
 * saves the payload exactly as the client sent it (one file per firing) and answers with the
 * outcome certify prepared for that event from the adapter's own denyOutcome/injectOutcome, so
 * the client's reaction to the adapter's real envelope is what gets observed.
 * argv: <capture dir> <event name>. Never fails the client: any error exits 0 with no output.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

interface Answers {
  /** Outcome for PreToolUse calls whose tool_input names a path inside `protectedDir`. */
  deny?: { protectedDir: string; stdout: string; exitCode: number };
  /** Outcome per event name (injected context). */
  inject?: Record<string, { stdout: string; exitCode: number }>;
}

const [dir = "", event = "unknown"] = process.argv.slice(2);
try {
  const text = readFileSync(0, "utf8");
  const stamp = process.hrtime.bigint().toString().padStart(20, "0");
  writeFileSync(path.join(dir, `${stamp}-${event.replace(/[^A-Za-z]/g, "")}.raw.json`), text);
  const answers = JSON.parse(readFileSync(path.join(dir, "answers.json"), "utf8")) as Answers;
  const payload = JSON.parse(text) as { tool_input?: Record<string, unknown> };
  const target = payload.tool_input?.file_path ?? payload.tool_input?.notebook_path;
  if (event === "PreToolUse" && answers.deny && typeof target === "string" && target.startsWith(answers.deny.protectedDir + path.sep)) {
    process.stdout.write(answers.deny.stdout);
    process.exitCode = answers.deny.exitCode;
  } else if (answers.inject?.[event]) {
    process.stdout.write(answers.inject[event].stdout);
    process.exitCode = answers.inject[event].exitCode;
  }
} catch {
  process.exitCode = 0;
}
