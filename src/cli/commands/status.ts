/**
 * `patchbay status [--json]`: asks the running `patchbay serve` of this config (over its control
 * socket in .patchbay/) for every instance's state, health, calls, errors, latency and restarts.
 * Exit 1 when no server answers. With `--peers URL,...`: every replica's GET /status instead
 * (status-peers.ts).
 */
import path from "node:path";
import { EXIT, fromWire, pbError, type ExitCode, type WireError } from "../../errors.js";
import { resolveConfigPath } from "../../config/source.js";
import { askServer } from "../../gateway/control.js";
import { stateDir } from "../../gateway/state-dir.js";
import type { StatusDocument } from "../../gateway/serve.js";
import { allowFlags, flagString, type ParsedArgs } from "../args.js";
import { table, type Output } from "../render.js";
import { peersStatus, peerToken } from "./status-peers.js";

export async function statusCommand(args: ParsedArgs, io: Output): Promise<ExitCode> {
  allowFlags(args, "status", ["json", "peers"]);
  const peers = flagString(args, "peers");
  if (peers !== undefined) {
    const list = peers
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    if (list.length === 0)
      throw pbError(
        "PB_ERR_USAGE",
        "--peers needs at least one URL (e.g. --peers http://10.0.0.5:7777,http://10.0.0.6:7777).",
        { flag: "peers" },
      );
    let file: string | null = null;
    try {
      file = resolveConfigPath({ config: flagString(args, "config") }).file;
    } catch {
      // No connectors.json here: the token can still come from PATCHBAY_TOKEN.
    }
    return peersStatus(list, peerToken(file), args.flags.json === true, io);
  }
  const file = resolveConfigPath({ config: flagString(args, "config") }).file;
  const dir = stateDir(file);
  const answer = await askServer(dir, { op: "status" });
  if (!answer) {
    throw pbError(
      "PB_ERR_SERVER_NOT_RUNNING",
      `No \`patchbay serve\` is running for ${file} (nothing answers on ${path.join(dir, "serve.sock")}).`,
      { file, exit: EXIT.UNHEALTHY },
    );
  }
  if (!answer.ok) throw fromWire(answer.error as WireError);
  const doc = answer.value as StatusDocument;
  if (args.flags.json) {
    io.out(JSON.stringify(doc, null, 2));
    return EXIT.OK;
  }
  const ago = (t: number | null) => (t === null ? "-" : `${Math.max(0, Math.round((Date.now() - t) / 1000))}s ago`);
  const ms = (v: number | null) => (v === null ? "-" : `${v}ms`);
  io.out(
    `patchbay serve (pid ${doc.pid}) for ${doc.configFile ?? "an object config"}, up ${ago(doc.startedAt).replace(" ago", "")}${doc.booting ? ", booting" : ""}; ${doc.tools} gateway tools; transports: ${[doc.transports.mcp ? "stdio" : null, doc.transports.http].filter(Boolean).join(", ") || "none (control only)"}`,
  );
  io.out(
    table([
      ["INSTANCE", "STATE", "HEALTH", "CHECKED", "CALLS", "ERRORS", "P50", "P99", "RESTARTS"],
      ...doc.instances.map((i) => [
        i.id,
        i.state,
        i.healthy ? "healthy" : "unhealthy",
        ago(i.lastHealthAt),
        String(i.calls),
        String(i.errors),
        ms(i.p50Ms),
        ms(i.p99Ms),
        String(i.restarts),
      ]),
    ]),
  );
  for (const i of doc.instances) if (i.error) io.out(`  ${i.id}: [${i.error.code}] ${i.error.message}`);
  // Older servers answer without pins.
  if (doc.pins) {
    const first = doc.pins.firstUse ? `; written on first use for ${doc.pins.firstUse.instances.join(", ")}` : "";
    io.out(`pins: ${doc.pins.mode}, ${doc.pins.file ?? "in memory"}${first}`);
    for (const f of doc.pins.findings)
      io.out(
        `  ${f.instance}: ${f.name}: ${f.status} [${f.code}] (${f.mode === "enforce" ? "withheld" : "served, flagged"})`,
      );
  }
  // Only for instances whose upstream server asked anything (sampling, elicitation, roots).
  for (const i of doc.instances)
    if (i.clientRequests)
      io.out(`  ${i.id}: server requests ${i.clientRequests.served} served, ${i.clientRequests.refused} refused`);
  return EXIT.OK;
}
