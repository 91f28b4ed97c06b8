/**
 * What `serve --watch` does with a reload's outcome: it says on stderr what changed, and it takes the
 * new gateway section (expose, pinning, clients) only when every part of the reload went through and
 * serve would start with that section, so a hand edit cannot put in force what a restart refuses.
 */
import { pbError, toWire, type PatchbayError } from "../errors.js";
import type { ResolvedConfig } from "../config/types.js";
import type { Host } from "../host/api.js";
import type { ReloadOutcome } from "../host/reload.js";
import type { LiveHealth } from "../registry/live-health.js";
import type { Gateway } from "./gateway.js";

export interface ReloadTaker {
  host: Host;
  gateway: Gateway;
  live: LiveHealth;
  say: (line: string) => void;
  applyClients: (g: ResolvedConfig["gateway"]) => Promise<unknown>;
  /** Why serve would refuse the section at start (empty: it would not). */
  gatewayProblems: (g: ResolvedConfig["gateway"]) => Promise<PatchbayError[]>;
}

export async function takeReload(o: ReloadOutcome, taker: ReloadTaker): Promise<void> {
  const { host, gateway, live, say, applyClients, gatewayProblems } = taker;
  // A reload may bring new ${VAR} secrets: the host's scrubber knows them, the CLI's copy does not.
  const tell = (line: string) => say(host.scrubber.scrub(line));
  const degraded = new Set(o.degraded.map((e) => e.data.instance));
  for (const id of [...o.restarted, ...o.added].filter((i) => !degraded.has(i)))
    say(`patchbay: reloaded ${id} (healthy on its new worker)`);
  for (const e of o.degraded)
    tell(
      `patchbay: added ${e.data.instance} degraded (it is optional; its tools appear once its check passes): [${e.code}] ${e.message}`,
    );
  for (const id of o.removed) say(`patchbay: removed ${id}`);
  const beyond = o.config && o.failures.length === 0 ? await gatewayProblems(o.config.gateway) : [];
  if (beyond.length > 0) {
    const cause = invalidGateway(beyond);
    o.failures.push(
      toWire(
        pbError(
          "PB_ERR_RELOAD_FAILED",
          `Reload of connectors.json's gateway section failed, the one in force stays: [${cause.code}] ${cause.message}`,
          { instance: null, cause: cause.code },
          cause.hint,
        ),
      ),
    );
  }
  for (const f of o.failures) tell(`patchbay: [${f.code}] ${f.message}`);
  if (o.config && o.failures.length === 0) {
    gateway.setExpose(o.config.gateway.expose, o.config.gateway.pinning);
    await applyClients(o.config.gateway);
  }
  live.sync();
  await gateway.refresh();
  say(
    `patchbay: reload done (${o.restarted.length + o.added.length} started, ${o.removed.length} removed, ${o.failures.length} failed).`,
  );
}

/** The gateway section names something serve cannot honour (clients/ceiling.ts and the gateway's own checks). */
export function invalidGateway(problems: PatchbayError[]): PatchbayError {
  return pbError(
    "PB_ERR_CONFIG_INVALID",
    `The gateway section of connectors.json is invalid:\n${problems.map((p) => `  - ${p.message}`).join("\n")}`,
    { problems: problems.map((p) => p.data) },
    problems[0]?.hint,
  );
}
