/**
 * The hook command `patchbay adapter certify` wires for every event the client declares: it
 * saves the payload exactly as the client sent it (one file per firing) and answers with the
 * outcome certify prepared for that event from the adapter's own denyOutcome/injectOutcome, so
 * the client's reaction to the adapter's real envelope is what gets observed.
 * argv: <capture dir> <event name>. Never fails the client: any error exits 0 with no output.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

interface Outcome {
  stdout: string;
  stderr?: string;
  exitCode: number;
}

interface Answers {
  /** Outcome for calls at one of `events` whose payload names a path inside `protectedDir`. */
  deny?: Outcome & { protectedDir: string; events: string[] };
  /** Outcome per event name (injected context). */
  inject?: Record<string, Outcome>;
}

function answer(o: Outcome): void {
  process.stdout.write(o.stdout);
  if (o.stderr) process.stderr.write(o.stderr);
  process.exitCode = o.exitCode;
}

const [dir = "", event = "unknown"] = process.argv.slice(2);
try {
  const text = readFileSync(0, "utf8");
  const stamp = process.hrtime.bigint().toString().padStart(20, "0");
  writeFileSync(path.join(dir, `${stamp}-${event.replace(/[^A-Za-z]/g, "")}.raw.json`), text);
  const answers = JSON.parse(readFileSync(path.join(dir, "answers.json"), "utf8")) as Answers;
  // Any mention of the protected folder counts (a write path field, or a patch naming the file):
  // whichever way the client names the write, the adapter's deny is what gets observed.
  const named = answers.deny && text.includes(JSON.stringify(answers.deny.protectedDir + path.sep).slice(1, -1));
  if (answers.deny && named && answers.deny.events.includes(event)) answer(answers.deny);
  else if (answers.inject?.[event]) answer(answers.inject[event]);
} catch {
  process.exitCode = 0;
}
